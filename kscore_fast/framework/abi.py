"""The plugin table and the entry points' signatures: how the framework's compiled loops
reach a plugin (see :mod:`kscore_fast._native` for the mechanism and
:mod:`.entries` for how a plugin's entry points are compiled).

A profile's plugins are rows of ``table`` (int64[P, COLUMNS]): the address of the
plugin's packed state (``STATE``) and of each of its compiled entry points, 0 where the
plugin has none. A loop passes ``table`` and a plugin's row ``p``; every entry takes the
state's address first:

* ``FILTER``: ``filter(state, k, rep, c, lo, hi, nodes, memo)`` writes the verdicts of
  filter plugin ``k`` of the profile for pod class ``c`` (representative pod ``rep``) on
  nodes ``lo:hi`` (``nodes`` non-empty: ``nodes[lo:hi]``) where no earlier plugin
  failed (``search.filter_rows``);
* ``SCORE``/``SCORE_SERIAL``: ``score(state, pod, nodes, out)``: the plugin's ``Score`` of
  ``pod`` on each of ``nodes`` (int32) into ``out`` (int64). ``SCORE`` may run on several
  threads at once; ``SCORE_SERIAL`` runs in the sequential loop only (a plugin may keep
  scratch rows in its state there); ``NORMALIZE``: ``normalize(state, pod, nodes,
  scores)``, its ``NormalizeScore`` in place (0: it has none). The framework's scoring
  loop (``scoring.plugin_pass``) calls them pod by pod;
* ``SCORE_NORMALIZE``: ``score_normalize(state, pod, nodes, raw, scores)``: ``SCORE`` into
  ``raw`` and ``NORMALIZE`` of those into ``scores`` (not aliasing ``raw``) in one call,
  for a plugin that can do both in fewer passes over the nodes for some pods and lists:
  returns 1 when it did, 0 when the caller is to call the two (0 in the table: the
  plugin has no such entry; the batch runtime's scoring loop calls it, the sequential
  loop does not);
* ``ASSUME``/``REMOVE``: ``assume(state, pod, node)``: ``pod`` bound to (removed from)
  ``node`` in the plugin's node aggregates; returns 1 when the change may reach beyond
  ``node`` (every node's verdicts and scores may change), else 0.
"""

from __future__ import annotations

from numba.core import types

from .._native import call

STATE, FILTER, SCORE, SCORE_SERIAL, NORMALIZE, ASSUME, REMOVE, SCORE_NORMALIZE = range(8)
COLUMNS = 8

_I64 = types.int64


def _array(dtype: types.Type, ndim: int) -> types.Array:
    return types.Array(dtype, ndim, "C")


FILTER_ABI = (_I64, _I64, _I64, _I64, _I64, _I64, _array(_I64, 1), _array(_I64, 2))
SCORE_ABI = (_I64, _I64, _array(types.int32, 1), _array(_I64, 1))
SCORE_NORMALIZE_ABI = (_I64, _I64, _array(types.int32, 1), _array(_I64, 1), _array(_I64, 1))
BIND_ABI = (_I64, _I64, _I64)

#: ``call_filter(table[p, FILTER], table[p, STATE], k, rep, c, lo, hi, nodes, memo)``
call_filter = call(FILTER_ABI)
#: ``call_score(table[p, SCORE], table[p, STATE], pod, nodes, out)`` (and ``NORMALIZE``'s:
#: the same signature)
call_score = call(SCORE_ABI)
#: ``call_score_normalize(table[p, SCORE_NORMALIZE], table[p, STATE], pod, nodes, raw, scores)``
call_score_normalize = call(SCORE_NORMALIZE_ABI)
#: ``call_bind(table[p, ASSUME], table[p, STATE], pod, node)``: 1 when the change is wide
call_bind = call(BIND_ABI)
