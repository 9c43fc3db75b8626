#!/usr/bin/env bash
# Builds goref, runs its Go tests, and checks the CLI end to end.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
./build.sh
GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
export GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false -mod=readonly"

"$GO" test -count=1 .

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # name, command...
  local name="$1"; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then pass=$((pass + 1)); echo "ok   $name"
  else fail=$((fail + 1)); echo "FAIL $name"; cat "$tmp/out" "$tmp/err" | head -20; fi
}
expect_exit() { # code, command...
  local want="$1"; shift
  set +e; "$@" >/dev/null 2>&1; local got=$?; set -e
  [[ "$got" == "$want" ]]
}

check "score small (seed 1) matches expected" bash -c \
  'bin/goref score testdata/small --seed 1 --quiet -o "$0/s.json" && diff -u testdata/expected/small-seed1.json "$0/s.json"' "$tmp"
check "score filters with v1beta3 default profile matches expected" bash -c \
  'bin/goref score testdata/filters --config testdata/filters/default-v1beta3.yaml.cfg --seed 1 --quiet | diff -u testdata/expected/filters-default-v1beta3-seed1.json -'
check "same seed, same output" bash -c \
  'a=$(bin/goref score testdata/small --seed 9 --quiet); b=$(bin/goref score testdata/small --seed 9 --quiet); [[ "$a" == "$b" ]]'
check "warning line on stderr" bash -c \
  'bin/goref score testdata/small 2>&1 >/dev/null | grep -qx "goref: skipped 2 objects of unused kinds (ConfigMap 1, Deployment 1); left out 1 pods bound to nodes absent from the input"'
check "--plugins \"\" gives total 1 and plugins {}" bash -c \
  'bin/goref score testdata/small --plugins "" --quiet | grep -q "{\"node\":\"n1\",\"total\":1,\"plugins\":{}}"'
check "unknown plugin exits 2" expect_exit 2 bin/goref score testdata/small --plugins Bogus
check "negative weight exits 2" expect_exit 2 bin/goref score testdata/small --plugins SelectorSpread=-1
check "--config with --plugins exits 2" expect_exit 2 bin/goref score testdata/small --plugins SelectorSpread --config testdata/filters/default-v1beta3.yaml.cfg
check "missing path exits 2" expect_exit 2 bin/goref score /nonexistent/path
check "score: CSINodes reach NodeVolumeLimits (default profile without VolumeBinding), no warning" bash -c '
  printf "%s\n" "kind: Node" "metadata: {name: a}" "status: {allocatable: {pods: \"9\"}}" "---" \
    "kind: Node" "metadata: {name: b}" "status: {allocatable: {pods: \"9\"}}" "---" \
    "apiVersion: storage.k8s.io/v1" "kind: CSINode" "metadata: {name: a}" "spec: {drivers: [{name: d.io, nodeID: a, allocatable: {count: 0}}]}" "---" \
    "apiVersion: storage.k8s.io/v1" "kind: CSIDriver" "metadata: {name: d.io}" "spec: {attachRequired: true}" "---" \
    "kind: PersistentVolume" "metadata: {name: pv}" "spec: {csi: {driver: d.io, volumeHandle: h}}" "---" \
    "kind: PersistentVolumeClaim" "metadata: {name: c}" "spec: {volumeName: pv}" "---" \
    "kind: Pod" "metadata: {name: p}" "spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]}" > "$0/csi.yaml"
  printf "%s\n" "apiVersion: kubescheduler.config.k8s.io/v1beta3" "kind: KubeSchedulerConfiguration" \
    "profiles: [{schedulerName: default-scheduler, plugins: {multiPoint: {disabled: [{name: VolumeBinding}]}}}]" > "$0/csi.cfg"
  r=$(bin/goref score "$0/csi.yaml" --config "$0/csi.cfg" 2>"$0/csi.err") && [[ ! -s "$0/csi.err" ]] &&
  python3 -c "
import json, sys
r = json.loads(sys.argv[1])[\"results\"]
assert [(x[\"pod\"], x[\"host\"], x[\"feasibleNodes\"]) for x in r] == [(\"default/p\", \"b\", 1)], r
" "$r"' "$tmp"
check "score: PVCs, PVs, StorageClasses reach VolumeZone (volumezone profile), no warning" bash -c '
  printf "%s\n" "kind: Node" "metadata: {name: a, labels: {topology.kubernetes.io/zone: a}}" "status: {allocatable: {pods: \"9\"}}" "---" \
    "kind: Node" "metadata: {name: b, labels: {topology.kubernetes.io/zone: b}}" "status: {allocatable: {pods: \"9\"}}" "---" \
    "apiVersion: storage.k8s.io/v1" "kind: StorageClass" "metadata: {name: sc}" "provisioner: p" "---" \
    "kind: PersistentVolume" "metadata: {name: pv, labels: {topology.kubernetes.io/zone: b}}" "spec: {storageClassName: sc}" "---" \
    "kind: PersistentVolumeClaim" "metadata: {name: c}" "spec: {storageClassName: sc, volumeName: pv}" "---" \
    "kind: Pod" "metadata: {name: p}" "spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]}" > "$0/vz.yaml"
  r=$(bin/goref score "$0/vz.yaml" --config testdata/filters/volumezone-v1beta3.yaml.cfg 2>"$0/vz.err") && [[ ! -s "$0/vz.err" ]] &&
  python3 -c "
import json, sys
r = json.loads(sys.argv[1])[\"results\"]
assert [(x[\"pod\"], x[\"host\"], x[\"feasibleNodes\"]) for x in r] == [(\"default/p\", \"b\", 1)], r
" "$r"' "$tmp"
check "simulate: one pending pod gives score's output" bash -c \
  'python3 -c "import json,sys; d=json.load(open(\"testdata/filters/cluster.json\")); pend=[i for i in d[\"items\"] if i[\"kind\"]==\"Pod\" and not i[\"spec\"].get(\"nodeName\")]; d[\"items\"]=[i for i in d[\"items\"] if i not in pend[1:]]; json.dump(d, open(sys.argv[1], \"w\"))" "$0/one.json" &&
   a=$(bin/goref score "$0/one.json" --config testdata/filters/default-v1beta3.yaml.cfg --seed 3 --quiet) &&
   b=$(bin/goref simulate "$0/one.json" --config testdata/filters/default-v1beta3.yaml.cfg --seed 3 --quiet) && [[ "$a" == "$b" ]]' "$tmp"
check "simulate: priority order, assumed pods seen, same seed same output" bash -c '
  printf "%s\n" "kind: Node" "metadata: {name: a}" "status: {allocatable: {cpu: \"2\", pods: \"9\"}}" "---" \
    "kind: Node" "metadata: {name: b}" "status: {allocatable: {cpu: \"2\", pods: \"9\"}}" "---" \
    "kind: Pod" "metadata: {name: late}" "spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" "---" \
    "kind: Pod" "metadata: {name: first}" "spec: {priority: 9, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" "---" \
    "kind: Pod" "metadata: {name: none}" "spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" > "$0/seq.yaml"
  a=$(bin/goref simulate "$0/seq.yaml" --config testdata/filters/default-v1beta3.yaml.cfg --seed 4 --scores top:1)
  b=$(bin/goref simulate "$0/seq.yaml" --config testdata/filters/default-v1beta3.yaml.cfg --seed 4 --scores top:1)
  [[ "$a" == "$b" ]] && python3 -c "
import json, sys
r = json.loads(sys.argv[1])[\"results\"]
assert [x[\"pod\"] for x in r] == [\"default/first\", \"default/late\", \"default/none\"], r
assert r[0][\"feasibleNodes\"] == 2 and len(r[0][\"scores\"]) == 1 and r[1][\"feasibleNodes\"] == 1, r
assert r[1][\"host\"] != r[0][\"host\"] and r[2][\"host\"] is None and \"Insufficient cpu\" in r[2][\"error\"], r
" "$a"' "$tmp"
check "simulate: unknown flag exits 2" expect_exit 2 bin/goref simulate testdata/small --runs 2
check "simulate --events: one result per schedule op, an added node used" bash -c '
  printf "%s\n" "kind: Node" "metadata: {name: a}" "status: {allocatable: {cpu: \"2\", pods: \"9\"}}" "---" \
    "kind: Pod" "metadata: {name: p1}" "spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" "---" \
    "kind: Pod" "metadata: {name: p2}" "spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" > "$0/ev.yaml"
  printf "%s\n" "{\"op\":\"schedule\",\"pod\":\"default/p1\"}" "{\"op\":\"schedule\",\"pod\":\"default/p2\"}" \
    "{\"op\":\"addNode\",\"node\":{\"metadata\":{\"name\":\"b\"},\"status\":{\"allocatable\":{\"cpu\":\"2\",\"pods\":\"9\"}}}}" \
    "{\"op\":\"schedule\",\"pod\":\"default/p2\"}" "{\"op\":\"delete\",\"pod\":\"default/p1\"}" "{\"op\":\"removeNode\",\"node\":\"a\"}" > "$0/ev.jsonl"
  r=$(bin/goref simulate "$0/ev.yaml" --config testdata/filters/default-v1beta3.yaml.cfg --seed 2 --quiet --scores none --events "$0/ev.jsonl")
  python3 -c "
import json, sys
r = json.loads(sys.argv[1])[\"results\"]
assert [(x[\"pod\"], x[\"host\"]) for x in r] == [(\"default/p1\", \"a\"), (\"default/p2\", None), (\"default/p2\", \"b\")], r
" "$r"' "$tmp"
echo '{"op":"bind","pod":"default/p1"}' > "$tmp/bad.jsonl"
check "simulate --events: an unknown op exits 2" expect_exit 2 bin/goref simulate "$tmp/ev.yaml" --events "$tmp/bad.jsonl"
check "replay: the testdata/replay scenario matches expected" bash -c \
  'bin/goref replay testdata/replay/cluster.yaml --events testdata/replay/events.jsonl --config testdata/filters/default-v1beta3.yaml.cfg --seed 1 --quiet | diff -u testdata/expected/replay-default-v1beta3-seed1.json -'
check "replay --until: stops at the last flush before it, big still pending" bash -c \
  'bin/goref replay testdata/replay/cluster.yaml --events testdata/replay/events.jsonl --config testdata/filters/default-v1beta3.yaml.cfg --until 99.5 --quiet | python3 -c "import json,sys; d=json.load(sys.stdin); a=d[\"attempts\"]; assert len(a)==7 and a[-1][\"timeNs\"]==90*10**9 and d[\"pending\"]==[\"default/big\"] and d[\"endNs\"]==99*10**9, d"'
printf '%s\n' '{"time":1,"op":"schedule","pod":"default/p1"}' > "$tmp/sched.jsonl"
check "replay: a schedule op exits 2" expect_exit 2 bin/goref replay testdata/replay/cluster.yaml --events "$tmp/sched.jsonl"
printf '%s\n' '{"time":2,"op":"delete","pod":"default/p1"}' '{"time":1,"op":"delete","pod":"default/p2"}' > "$tmp/back.jsonl"
check "replay: decreasing times exit 2" expect_exit 2 bin/goref replay testdata/replay/cluster.yaml --events "$tmp/back.jsonl"
printf '%s\n' '{"time":1,"op":"addPod","pod":{"metadata":{"name":"r"},"spec":{"priorityClassName":"nope","containers":[{"name":"c"}]}}}' > "$tmp/refused.jsonl"
check "replay: a pod the Priority admission refuses exits 2 naming the line" bash -c \
  'bin/goref replay testdata/replay/cluster.yaml --events "$0/refused.jsonl" 2>&1 >/dev/null; [[ $? == 2 ]] && bin/goref replay testdata/replay/cluster.yaml --events "$0/refused.jsonl" 2>&1 | grep -q "line 1 (addPod): refused by the Priority admission plugin"' "$tmp"
printf "%s\n" "kind: Node" "metadata: {name: a}" "status: {allocatable: {cpu: \"2\", pods: \"9\"}}" "---" \
  "kind: Node" "metadata: {name: b}" "status: {allocatable: {cpu: \"2\", pods: \"9\"}}" "---" \
  "kind: Pod" "metadata: {name: la, labels: {app: a}}" "spec: {nodeName: a, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" "status: {startTime: \"2022-01-01T00:00:01Z\"}" "---" \
  "kind: Pod" "metadata: {name: lb, labels: {app: b}}" "spec: {nodeName: b, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" "status: {startTime: \"2022-01-01T00:00:01Z\"}" "---" \
  "apiVersion: policy/v1" "kind: PodDisruptionBudget" "metadata: {name: keep-a}" "spec: {minAvailable: 1, selector: {matchLabels: {app: a}}}" "---" \
  "kind: Pod" "metadata: {name: hi}" "spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" > "$tmp/pre.yaml"
check "simulate --preemption --retry-nominated: hi evicts lb (la has a PDB), then lands on b" bash -c '
  r=$(bin/goref simulate "$0/pre.yaml" --config testdata/filters/default-v1beta3.yaml.cfg --preemption --retry-nominated --scores none --quiet)
  python3 -c "
import json, sys
r = json.loads(sys.argv[1])[\"results\"]
assert [(x[\"pod\"], x[\"host\"]) for x in r] == [(\"default/hi\", None), (\"default/hi\", \"b\")], r
f = r[0]
assert f[\"nominatedNode\"] == \"b\" and f[\"victims\"] == [{\"namespace\": \"default\", \"name\": \"lb\", \"priority\": 1}], f
assert f[\"pdbViolations\"] == 0 and f[\"postFilterCode\"] == \"Success\" and f[\"preemptionDraw\"] and f[\"preemptionTies\"] == [\"b\"], f
assert r[1][\"retry\"] is True and \"victims\" not in r[1], r
" "$r"' "$tmp"
check "simulate without --preemption: no PostFilter fields" bash -c \
  '! bin/goref simulate "$0/pre.yaml" --config testdata/filters/default-v1beta3.yaml.cfg --quiet | grep -q nominatedNode' "$tmp"
check "score --explain: the same victims for every pod, nothing applied" bash -c '
  cp "$0/pre.yaml" "$0/pre2.yaml" && printf "%s\n" "---" "kind: Pod" "metadata: {name: hi2}" "spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}" >> "$0/pre2.yaml"
  r=$(bin/goref score "$0/pre2.yaml" --config testdata/filters/default-v1beta3.yaml.cfg --explain --scores none --quiet)
  python3 -c "
import json, sys
r = json.loads(sys.argv[1])[\"results\"]
assert len(r) == 2 and all(x[\"nominatedNode\"] == \"b\" and [v[\"name\"] for v in x[\"victims\"]] == [\"lb\"] for x in r), r
" "$r"' "$tmp"
check "--retry-nominated without --preemption exits 2" expect_exit 2 bin/goref simulate "$tmp/pre.yaml" --retry-nominated
check "score --explain without a PostFilter plugin exits 2" expect_exit 2 bin/goref score "$tmp/pre.yaml" --explain
check "pdb-status: minAvailable 1 of 1 healthy pod allows nothing" bash -c \
  'bin/goref pdb-status "$0/pre.yaml" | python3 -c "import json,sys; p=json.load(sys.stdin)[\"pdbs\"]; assert [(x[\"name\"], x[\"computed\"], x[\"disruptionsAllowed\"], x[\"currentHealthy\"]) for x in p] == [(\"keep-a\", True, 0, 1)], p"' "$tmp"
check "bench-preemption --json is machine-readable" bash -c \
  'bin/goref bench-preemption --nodes 10 --init-pods 40 --preemptors 10 --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"nominated\"]==10 and d[\"bound\"]==10 and d[\"victims\"]==30 and d[\"usPerPreemptor\"]>0, d"'
check "simbench --json is machine-readable" bash -c \
  'bin/goref simbench testdata/filters --config testdata/filters/default-v1beta3.yaml.cfg --runs 2 --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"mode\"]==\"sequential\" and d[\"nodes\"]==6 and d[\"pods\"]==4 and d[\"scheduled\"]==3 and len(d[\"runsNsPerPod\"])==2 and d[\"minNsPerPod\"]>0, d"'
check "bench --json is machine-readable" bash -c \
  'bin/goref bench --shapes 100x1000 --iterations 20 --warmup 2 --runs 1 --json | python3 -c "import json,sys; d=json.load(sys.stdin); r=d[\"results\"][0]; assert r[\"nodes\"]==100 and r[\"existingPods\"]==1000 and r[\"nsPerOp\"]>0 and r[\"scoreSum\"]==0"'

echo "goref: $pass passed, $fail failed"
[[ "$fail" == 0 ]]
