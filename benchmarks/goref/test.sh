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
check "bench --json is machine-readable" bash -c \
  'bin/goref bench --shapes 100x1000 --iterations 20 --warmup 2 --runs 1 --json | python3 -c "import json,sys; d=json.load(sys.stdin); r=d[\"results\"][0]; assert r[\"nodes\"]==100 and r[\"existingPods\"]==1000 and r[\"nsPerOp\"]>0 and r[\"scoreSum\"]==0"'

echo "goref: $pass passed, $fail failed"
[[ "$fail" == 0 ]]
