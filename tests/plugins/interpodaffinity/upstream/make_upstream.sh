#!/usr/bin/env bash
# Regenerates upstream.json: the case tables of kube-scheduler v1.23.6's
# pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring}_test.go, dumped
# by the Go tests themselves (dump_test.go hooks each table before its loop), compacted
# to the fields InterPodAffinity reads. Needs Go and benchmarks/goref's module set.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
goref="$here/../../../../benchmarks/goref"
src="$(go env GOMODCACHE)/k8s.io/kubernetes@v1.23.6/pkg/scheduler/framework/plugins/interpodaffinity"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$goref/go.mod" "$goref/go.sum" "$work/"
sed -i 's#^module .*#module k8s.io/kubernetes/pkg/scheduler/ipadump#' "$work/go.mod"
mkdir "$work/interpodaffinity"
cp "$src"/*.go "$here/dump_test.go" "$work/interpodaffinity/"
chmod u+w "$work"/interpodaffinity/*.go
# dumpCases("TestName", tests) before every `for _, test := range tests {`
awk '/^func Test/ { split($2, a, "("); fn = a[1] }
     /^[ \t]*for [a-zA-Z_]+, [a-zA-Z_]+ := range tests \{/ { print "\tdumpCases(\"" fn "\", tests)" }
     { print }' "$src/filtering_test.go" >"$work/interpodaffinity/filtering_test.go"
awk '/^func Test/ { split($2, a, "("); fn = a[1] }
     /^[ \t]*for [a-zA-Z_]+, [a-zA-Z_]+ := range tests \{/ { print "\tdumpCases(\"" fn "\", tests)" }
     { print }' "$src/scoring_test.go" >"$work/interpodaffinity/scoring_test.go"
(cd "$work" && GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=mod" IPA_DUMP="$work/raw.json" \
  go test ./interpodaffinity/ >/dev/null)
python3 "$here/compact.py" "$work/raw.json" "$here/upstream.json"
