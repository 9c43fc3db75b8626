"""Regenerate ``upstream.json``: the table tests of upstream's podtopologyspread package
(filtering_test.go ``TestPreFilterState``, ``TestSingleConstraint``,
``TestMultipleConstraints``; scoring_test.go ``TestPreScoreStateEmptyNodes``,
``TestPodTopologySpreadScore``), inputs and expectations, exactly as the Go tests hold them.

The package is copied from the module cache (k8s.io/kubernetes@v1.23.6) into a temporary
module next to goref's go.mod, one ``dump(...)`` line is inserted at the top of each
table loop, ``go test`` runs the tests (they pass, so the expectations are Go's results)
and the cases are written here, each object reduced to the fields the plugin reads.

    python tests/plugins/podtopologyspread/make_upstream.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gomodule import go_env, make_module

HERE = Path(__file__).resolve().parent
#: (file, test function, the dump call inserted at the top of its ``range tests`` loop)
INSERTS = [
    (
        "filtering_test.go",
        "TestPreFilterState",
        '"pod": tt.pod, "nodes": tt.nodes, "existingPods": tt.existingPods, '
        '"objs": objsJSON(tt.objs), "defaultConstraints": tt.defaultConstraints, '
        '"want": preFilterJSON(tt.want)',
    ),
    (
        "filtering_test.go",
        "TestSingleConstraint",
        '"pod": tt.pod, "nodes": tt.nodes, "existingPods": tt.existingPods, '
        '"wantStatusCode": codesJSON(tt.wantStatusCode)',
    ),
    (
        "filtering_test.go",
        "TestMultipleConstraints",
        '"pod": tt.pod, "nodes": tt.nodes, "existingPods": tt.existingPods, '
        '"wantStatusCode": codesJSON(tt.wantStatusCode)',
    ),
    (
        "scoring_test.go",
        "TestPreScoreStateEmptyNodes",
        '"pod": tt.pod, "nodes": tt.nodes, "objs": objsJSON(tt.objs), "config": '
        'map[string]interface{}{"defaultConstraints": tt.config.DefaultConstraints, '
        '"defaultingType": tt.config.DefaultingType}, "want": preScoreJSON(tt.want)',
    ),
    (
        "scoring_test.go",
        "TestPodTopologySpreadScore",
        '"pod": tt.pod, "nodes": tt.nodes, "failedNodes": tt.failedNodes, '
        '"existingPods": tt.existingPods, "objs": objsJSON(tt.objs), "want": tt.want',
    ),
]

#: the helpers the inserted lines call (a file of the copied package)
DUMP_GO = HERE / "dump_test.go.txt"


def _insert(path: Path) -> None:
    lines = path.read_text().split("\n")
    for file, test, fields in INSERTS:
        if file != path.name:
            continue
        start = next(i for i, x in enumerate(lines) if x.startswith(f"func {test}("))
        loop = next(i for i in range(start, len(lines)) if "range tests {" in lines[i])
        call = f'dump("{test}", map[string]interface{{}}{{"name": tt.name, {fields}}})'
        lines.insert(loop + 1, "\t\t" + call)
    path.write_text("\n".join(lines))


def _pod(p: dict) -> dict:
    meta, spec = p["metadata"], p["spec"]
    return {
        "name": meta["name"], "namespace": meta.get("namespace", ""),
        "labels": meta.get("labels") or {}, "node": spec.get("nodeName", ""),
        "deleting": meta.get("deletionTimestamp") is not None,
        "owner": [[r["apiVersion"], r["kind"], r["name"], bool(r.get("controller"))]
                  for r in meta.get("ownerReferences") or []],
        "tsc": spec.get("topologySpreadConstraints") or [],
        "nodeSelector": spec.get("nodeSelector") or {},
        "nodeAffinity": (spec.get("affinity") or {}).get("nodeAffinity"),
    }  # fmt: skip


def _node(n: dict) -> dict:
    return {"name": n["metadata"]["name"], "labels": n["metadata"].get("labels") or {}}


def _obj(o: dict) -> dict:
    meta, spec = o["obj"]["metadata"], o["obj"]["spec"]
    return {"kind": o["kind"], "namespace": meta.get("namespace", ""),
            "name": meta.get("name", ""), "selector": spec.get("selector")}  # fmt: skip


def _slim(case: dict) -> dict:
    out = {}
    for k, v in case.items():
        if k == "pod":
            v = _pod(v)
        elif k == "existingPods":
            v = [_pod(p) for p in v or []]
        elif k in ("nodes", "failedNodes"):
            v = [_node(n) for n in v or []]
        elif k == "objs":
            v = [_obj(o) for o in v]
        out[k] = v
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        make_module(work, tests=True, extra={"dump_test.go": DUMP_GO})
        for name in ("filtering_test.go", "scoring_test.go"):
            _insert(work / name)
        out = work / "dump.json"
        env = go_env(PTS_DUMP=str(out))
        tests = "|".join(f"{t}$" for _, t, _ in INSERTS)
        subprocess.run(["go", "test", "-count=1", "-run", tests, "."], cwd=work, env=env,
                       check=True)  # fmt: skip
        dumped = json.loads(out.read_text())
    slim = {test: [_slim(c) for c in cases] for test, cases in sorted(dumped.items())}
    line = lambda c: "  " + json.dumps(c, sort_keys=True)  # noqa: E731
    parts = [f" {json.dumps(t)}: [\n" + ",\n".join(map(line, c)) + "\n ]" for t, c in slim.items()]
    (HERE / "upstream.json").write_text("{\n" + ",\n".join(parts) + "\n}\n")  # a case a line


if __name__ == "__main__":
    main()
