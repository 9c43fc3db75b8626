"""Where the benchmarks and the tests find the data sets that are not in the repository.

* the Alibaba openb trace (``openb_node_list_*.csv``, ``openb_pod_list_*.csv``): the
  directory ``KSCORE_OPENB`` names, else ``../shared/data/openb`` beside the checkout.
  Tests and benchmarks that need it are skipped, saying so, when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the openb trace's directory
OPENB = Path(os.environ.get("KSCORE_OPENB") or ROOT.parent / "shared" / "data" / "openb")


def openb_missing(name: str = "openb_pod_list_default.csv") -> str | None:
    """Why the openb trace (its file ``name``) cannot be read here, or None."""
    if (OPENB / name).is_file():
        return None
    return f"the openb trace is not at {OPENB} (set KSCORE_OPENB to its directory)"
