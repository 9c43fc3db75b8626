"""Regenerate data/golden/: scenarios and the real kube-scheduler's output for them.

    python benchmarks/goref/make_golden.py        # needs benchmarks/goref/bin/goref

Writes ``data/golden/selectorspread.jsonl.gz``, ``data/golden/profile.jsonl.gz``,
``data/golden/simulate.jsonl.gz`` and ``data/golden/replay.jsonl.gz`` (with ``events``: a
timed replay's script, docs/queue.md): one JSON object per line with ``name``, ``flags``
(goref's command line), ``kwargs`` (the same for ``kscore_fast.score`` or
``kscore_fast.simulate``), ``input`` (a v1 List), ``config`` (a KubeSchedulerConfiguration
as YAML text, or null) and ``output`` (goref's document). tests/test_golden.py replays them
without Go. The profile cases run the default profile's filters and scores under random
configurations (the basic family without PodTopologySpread and InterPodAffinity, the
topology families with them), the embedded cluster and the openb sample under the default
configuration; the simulate cases are whole sequences with Go's tie-breaks
(``goref simulate --plugin-metrics-draw``).
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.goref import goref_missing, run_goref  # noqa: E402
from tests.scenarios import scenario  # noqa: E402
from tests.scenarios_profile import profile_config, profile_scenario  # noqa: E402

GOLDEN = ROOT / "data" / "golden"
DEFAULT = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
"""
NO_SPREAD = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      disabled: [{name: PodTopologySpread}, {name: InterPodAffinity}]
"""

FLAG_SETS = [
    ({}, []),
    ({"plugins": ""}, ["--plugins", ""]),
    ({"plugins": "SelectorSpread=3", "seed": 7}, ["--plugins", "SelectorSpread=3", "--seed", "7"]),
    ({"percentage_of_nodes_to_score": 100}, ["--percentage-of-nodes-to-score", "100"]),
    ({"percentage_of_nodes_to_score": 30}, ["--percentage-of-nodes-to-score", "30"]),
]


def cases():
    for i in range(260):
        kwargs, flags = FLAG_SETS[i % len(FLAG_SETS)]
        yield f"small-{i}", scenario(500_000 + i), kwargs, flags
    for i in range(30):
        kwargs, flags = FLAG_SETS[i % len(FLAG_SETS)]
        objs = scenario(600_000 + i, max_nodes=300, max_pods=800, max_pending=12)
        yield f"rotating-{i}", objs, kwargs, flags
    embedded = ROOT / "data" / "embedded"
    objs = [yaml.safe_load(f.read_text()) for f in sorted(embedded.glob("*.yaml"))]
    for kwargs, flags in FLAG_SETS[:4]:
        yield f"embedded{''.join(flags).replace('-', '')}", objs, kwargs, flags


def profile_cases():
    for i in range(150):
        seed = 700_000 + i
        config = yaml.safe_dump(profile_config(seed))
        kwargs = {"seed": seed, "scores": "top:3"} if i % 5 == 4 else {"seed": seed}
        flags = ["--seed", str(seed)] + (["--scores", "top:3"] if "scores" in kwargs else [])
        yield f"profile-{i}", profile_scenario(seed), kwargs, flags, config
    for i in range(10):
        seed = 800_000 + i
        objs = profile_scenario(seed, max_nodes=250, max_pods=300, max_pending=20)
        yield f"profile-large-{i}", objs, {"seed": seed}, ["--seed", str(seed)], NO_SPREAD
    embedded = ROOT / "data" / "embedded"
    objs = [
        o for f in sorted(embedded.glob("*.yaml")) for o in _items(yaml.safe_load(f.read_text()))
    ]
    # without the pods whose PersistentVolumeClaims the volume plugins would look up (not
    # simulated: Go fails them for want of PVC objects)
    objs = [o for o in objs if not _has_pvc(o)]
    yield "profile-embedded", objs, {}, [], DEFAULT
    openb = ROOT / "data" / "openb-sample" / "manifests"
    files = sorted(openb.glob("[!.]*.json"))
    objs = [o for f in files for o in json.loads(f.read_text())["items"]]
    yield "profile-openb-sample", objs, {}, [], DEFAULT
    for family, first in (("pts", 900_000), ("ipa", 910_000), ("mixed", 920_000)):
        for i in range(40):
            seed = first + i
            config = yaml.safe_dump(profile_config(seed, family=family))
            objs = profile_scenario(seed, family=family, max_nodes=12, max_pods=40,
                                    max_pending=8)  # fmt: skip
            yield f"profile-{family}-{i}", objs, {"seed": seed}, ["--seed", str(seed)], config


def simulate_cases():
    for family, first in (("basic", 950_000), ("pts", 960_000), ("ipa", 970_000),
                          ("mixed", 980_000)):  # fmt: skip
        for i in range(25):
            seed = first + i
            config = yaml.safe_dump(profile_config(seed, family=family))
            objs = profile_scenario(seed, family=family, max_nodes=12, max_pods=30,
                                    max_pending=16)  # fmt: skip
            kwargs = {"seed": seed, "tie_break": "go-rand"}
            flags = ["--seed", str(seed), "--plugin-metrics-draw"]
            yield f"simulate-{family}-{i}", objs, kwargs, flags, config


def replay_cases():
    """Timed replays with the scheduling queue (``goref replay``): the random scripts of
    tests/differential/timed.py, half of them run on past the last event (``--until``)."""
    import random
    from decimal import Decimal

    from tests.differential.events import scenario as event_scenario
    from tests.differential.timed import draw_events

    for family, first in (("basic", 990_000), ("pts", 991_000), ("ipa", 992_000),
                          ("mixed", 993_000)):  # fmt: skip
        for i in range(25):
            seed = first + i
            rng = random.Random(seed * 31 + 7)
            sc = event_scenario(family, seed, ("addNode", "addPod"), max_nodes=10,
                                max_pods=30, max_pending=20)  # fmt: skip
            events = [{**e, "time": float(e["time"])} for e in draw_events(sc, rng)]
            until = Decimal(600 + rng.randrange(0, 200)) if i % 2 else None
            kwargs = {"seed": seed, "tie_break": "go-rand",
                      "until": None if until is None else float(until)}  # fmt: skip
            flags = ["--seed", str(seed), "--plugin-metrics-draw"]
            flags += [] if until is None else ["--until", str(until)]
            yield (f"replay-{family}-{i}", sc.objects, kwargs, flags,
                   yaml.safe_dump(sc.config), events)  # fmt: skip


def _items(doc: dict) -> list[dict]:
    return doc.get("items", []) if doc.get("kind", "").endswith("List") else [doc]


def _has_pvc(obj: dict) -> bool:
    volumes = (obj.get("spec") or {}).get("volumes") or []
    return obj.get("kind") == "Pod" and any("persistentVolumeClaim" in v for v in volumes)


def write(out_path: Path, cases, command: str = "score") -> int:
    n = 0
    raw = out_path.open("wb")
    gz = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)  # mtime 0: same input, same bytes
    with tempfile.TemporaryDirectory() as tmp, raw, gz, io.TextIOWrapper(gz, "utf-8") as out:
        for name, objs, kwargs, flags, *extra in cases:
            doc = {"apiVersion": "v1", "kind": "List", "items": objs}
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(doc))
            text = extra[0] if extra else None
            if text is not None:
                (Path(tmp) / "config.yaml").write_text(text)
                flags = [*flags, "--config", str(Path(tmp) / "config.yaml")]
            line = {"name": name, "kwargs": kwargs, "input": doc, "config": text}
            if len(extra) > 1:  # a replay's events
                events = Path(tmp) / "events.jsonl"
                events.write_text("".join(json.dumps(e) + "\n" for e in extra[1]))
                flags = [*flags, "--events", str(events)]
                line["events"] = extra[1]
            line.update(flags=flags, output=run_goref([path], flags, command))
            out.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
            n += 1
    print(f"wrote {n} cases to {out_path.relative_to(ROOT)}", file=sys.stderr)
    return n


def main() -> int:
    if why := goref_missing():
        print(why, file=sys.stderr)
        return 1
    GOLDEN.mkdir(parents=True, exist_ok=True)
    which = sys.argv[1:] or ["selectorspread", "profile", "simulate", "replay"]
    if "selectorspread" in which:
        write(GOLDEN / "selectorspread.jsonl.gz", cases())
    if "profile" in which:
        write(GOLDEN / "profile.jsonl.gz", profile_cases())
    if "simulate" in which:
        write(GOLDEN / "simulate.jsonl.gz", simulate_cases(), "simulate")
    if "replay" in which:
        write(GOLDEN / "replay.jsonl.gz", replay_cases(), "replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
