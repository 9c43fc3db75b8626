"""``Evaluator.Preempt``'s compiled part in one kernel call per preemptor: the nodes where
preemption might help (:func:`.kernels.split_by_code`), the candidates' offset
(``rand.Int31n`` from Go's source, or kscore's seeded draw), ``calculateNumCandidates``,
the walk (:func:`.kernels.dry_run`) and ``SelectCandidate`` (:func:`.kernels.pick`); with
``evict``, ``prepareCandidate``'s deletions of the chosen candidate's victims too
(:func:`.kernels.evict`). One call from Python instead of four (each a few microseconds
of numba's argument typing, and the Python around it); the scalar specification stays
:func:`.reference.preempt`, which :func:`.compiled.preempt_compiled` is tested equal to.
"""

from __future__ import annotations

import functools

from numba.core import types

from .._jit import inline_kernel, kernel
from .._native import call, function_address, state_loader
from ..framework.gorand import go_int31n
from ..framework.selection import _draw
from ..framework.sequential import _CACHE
from . import kernels

#: how the offset is drawn: ``rand.Int31n`` of Go's source ``rng``; kscore's seeded draw
#: for (``seed``, ``stream``); given by the caller in ``out[OFFSET]`` (the kernel stops
#: after the split with ``NEED_OFFSET`` when ``out[STAGE]`` is 0)
DRAW_GO, DRAW_SEEDED, DRAW_GIVEN = 0, 1, 2
#: ``out``'s fields: potential nodes, offset, candidates wanted, nodes walked, candidates,
#: the chosen candidate (the first of the tie set; -1: none), the stage (1: the offset is
#: given), whether the split of the call before is kept (1: the caller vouches that
#: ``verdicts`` and the known statuses are unchanged since it; read once, then 0)
POTENTIAL, OFFSET, WANTED, WALKED, CANDIDATES, CHOSEN, STAGE, KEPT = range(8)
OUT_FIELDS = 8
#: :func:`preempt_walk`'s return: done; the offset wanted (``DRAW_GIVEN``, stage 0)
DONE, NEED_OFFSET = 0, 1


@inline_kernel
def num_candidates(n, percentage, absolute):  # pragma: no cover - compiled
    """``calculateNumCandidates`` (:func:`.reference.num_candidates`)."""
    k = (n * percentage) // 100
    if k < absolute:
        k = absolute
    if k > n:
        k = n
    return k


@kernel
def preempt_walk(
    verdicts, known_verdicts, unresolvable, potential, unhelpful, mode, rng, seed, stream,
    percentage, absolute, fids, slots, fixed, table, aids, cache, pod, node_table, node_count,
    prio, start, pdb_ptr, pdb_idx, pdb_allowed, nom_ptr, nom_pods, memo, order, status, vptr,
    victims, violations, scratch, late, allowed, small, stack, known, known_ctl, cands, tie,
    evict, evict_ids, bound, out,
):  # fmt: skip  # pragma: no cover - compiled
    """PostFilter's walk for ``pod`` after its FitError (``verdicts``: the failed cycle's,
    on every node): the split into ``potential`` and ``unhelpful`` nodes (``out[POTENTIAL]``
    of the first), then, with some potential node, the offset drawn (``mode``), the walk
    into ``order``/``status``/``vptr``/``victims``/``violations`` (``out[WALKED]`` nodes,
    :func:`.kernels.dry_run`), the candidates and their tie set into ``cands``/``tie``
    (``out[CANDIDATES]``, :func:`.kernels.pick`) and the chosen one (the first of the tie
    set: ``cands[out[CHOSEN]]``); with ``evict``, its victims deleted (``RemovePod`` of the
    plugins of rows ``evict_ids``; ``bound``: each batch pod's node). Returns ``DONE``,
    ``NEED_OFFSET``, or ``-1 - node`` for the first node whose verdict's status is not
    known (nothing drawn or changed: the caller learns it and calls again)."""
    if out[KEPT] == 1:  # (``potential`` and ``unhelpful`` as the last call left them)
        n = out[POTENTIAL]
    else:
        n = kernels.split_by_code(verdicts, known_verdicts, unresolvable, potential, unhelpful)
        if n < 0:
            return n
    out[KEPT] = 0
    out[POTENTIAL], out[WALKED], out[CANDIDATES], out[CHOSEN] = n, 0, 0, -1
    if n == 0:
        return DONE
    if mode == DRAW_GO:
        out[OFFSET] = go_int31n(rng, n)
    elif mode == DRAW_SEEDED:
        out[OFFSET] = _draw(seed, stream, n)
    elif out[STAGE] == 0:
        return NEED_OFFSET
    wanted = num_candidates(n, percentage, absolute)
    out[WANTED] = wanted
    walked = kernels.dry_run(
        fids, slots, fixed, table, aids, cache, pod, potential[:n], out[OFFSET], wanted,
        node_table, node_count, prio, start, pdb_ptr, pdb_idx, pdb_allowed, nom_ptr, nom_pods,
        memo, order, status, vptr, victims, violations, scratch, late, allowed, small, stack,
        known, known_ctl,
    )  # fmt: skip
    out[WALKED] = walked
    found = kernels.pick(status, vptr, victims, violations, walked, wanted, prio, start, cands,
                         tie)  # fmt: skip
    out[CANDIDATES] = found
    for e in range(found):
        if tie[e]:
            out[CHOSEN] = e
            break
    if evict and found > 0:
        k = cands[out[CHOSEN]]
        kernels.evict(evict_ids, table, cache, bound, node_table, node_count,
                      victims[vptr[k] : vptr[k + 1]])  # fmt: skip
    return DONE


def _array(dtype: types.Type, ndim: int = 1) -> types.Array:
    return types.Array(dtype, ndim, "C")


_I64, _B = types.int64, types.boolean
_V, _V2 = _array(_I64), _array(_I64, 2)
#: :func:`preempt_walk`'s arguments as one tuple (see :data:`.sequential.CHUNK_ARGS`)
WALK_ARGS = types.Tuple((
    _V, _V, _array(_B), _V, _V, _I64, _V, types.uint64, types.uint64, _I64, _I64, _V, _V, _V,
    _V2, _V, _CACHE, _I64, _V2, _V, _V, _V, _V, _V, _V, _V, _V, _V2, _V, _V, _V, _V, _V, _V,
    _V, _V, _V, _V2, _V2, _V, _V, _array(_B), _B, _V, _array(types.int32), _V,
))  # fmt: skip
_load_walk_args = state_loader(WALK_ARGS)
_call_walk = call(WALK_ARGS.types)
#: the scalars a walk rewrites in the packed arguments
WALK_SCALARS = tuple(
    preempt_walk.py_func.__code__.co_varnames.index(name)
    for name in ("mode", "seed", "stream", "percentage", "absolute", "pod", "evict")
)


@kernel
def preempt_walk_packed(function, address):  # pragma: no cover - compiled
    """:func:`preempt_walk`, compiled at ``function`` (:func:`preempt_walk_address`), on its
    arguments packed at ``address`` (:class:`kscore_fast._native.PackedCall`: numba
    types two integers per call, not 46 arguments)."""
    return _call_walk(function, *_load_walk_args(address))


@functools.cache  # (the code stays where it is: a run packs its calls with it)
def preempt_walk_address() -> int:
    """The address of :func:`preempt_walk`'s compiled code for :data:`WALK_ARGS`."""
    return function_address(preempt_walk, WALK_ARGS.types)
