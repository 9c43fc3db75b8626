"""Cyclic garbage collection held off while the objects of a cluster are built.

Reading a cluster allocates hundreds of thousands of objects (records, tuples, dicts) and
no garbage in cycles, and collections triggered by the allocation count cost ~10% of the
reading. Worse, the first collection after a pause traverses every container object
allocated during it (~0.4 µs each: 1.5 µs per object of a kubectl dump): those built to
last are therefore moved to the oldest generation, as surviving two collections would
have moved them, without traversing them (``gc.freeze`` and ``gc.unfreeze``: two list
splices). They are examined at the next full collection, like any long-lived data.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic garbage collection inside; what was allocated inside and survives is in
    the oldest generation afterwards (unless the program froze objects of its own:
    ``gc.unfreeze`` would release them too)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()
