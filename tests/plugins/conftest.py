"""Fixtures the plugins' tests share."""

from __future__ import annotations

import pytest

from kscore_fast.plugins.helper import counter_table


@pytest.fixture(params=["dense", "hostname-wide", "all-wide"])
def counter_layout(request, monkeypatch):
    """The layouts of hostname and wide-key counters (``helper.counter_table``): every
    counter dense (small clusters, the default); those of hostname keys (and of keys of
    more than 64 domains) in the counter table; every key's in the table."""
    if request.param != "dense":
        monkeypatch.setattr(counter_table, "DENSE_BUDGET", -1)
    if request.param == "all-wide":
        monkeypatch.setattr(counter_table, "WIDE_DOMAINS", -1)
    return request.param
