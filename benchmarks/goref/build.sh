#!/usr/bin/env bash
# Builds benchmarks/goref/bin/goref: the real kube-scheduler v1.23.6 scoring code
# (k8s.io/kubernetes v1.23.6 and its staging modules at v0.23.6, from the Go module
# proxy) behind the `goref score` / `goref bench` CLI. Idempotent: a binary newer
# than every source file, go.mod and go.sum is left alone.
#
# Needs a Go toolchain >= 1.19 on PATH (or at /usr/local/go/bin/go); tested with
# go1.26.8 (the machine's) and known to work with Debian's golang-1.19-go.
# First build: about 25 s of module download (~95 MB) and 2 min of compiling.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

GO="${GO:-}"
if [[ -z "$GO" ]]; then
  if command -v go >/dev/null 2>&1; then
    GO="$(command -v go)"
  elif [[ -x /usr/local/go/bin/go ]]; then
    GO=/usr/local/go/bin/go
  elif [[ -x /usr/lib/go-1.19/bin/go ]]; then
    GO=/usr/lib/go-1.19/bin/go
  fi
fi
if [[ -z "$GO" ]]; then
  cat >&2 <<'MSG'
goref/build.sh: no Go toolchain found.
  Missing: the `go` command (Go >= 1.19), looked for on PATH, at /usr/local/go/bin/go
  and at /usr/lib/go-1.19/bin/go. Install one, e.g. `apt-get install -y golang-1.19-go`
  (then /usr/lib/go-1.19/bin/go), or set GO=/path/to/go, and run this script again.
MSG
  exit 127
fi

# Keep the go command on this toolchain (no toolchain download) and off VCS stamping.
export GOTOOLCHAIN=local
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false -mod=readonly"

ver="$("$GO" env GOVERSION 2>/dev/null || true)"
minor="$(sed -n 's/^go1\.\([0-9][0-9]*\).*/\1/p' <<<"$ver")"
if [[ -z "$minor" || "$minor" -lt 19 ]]; then
  echo "goref/build.sh: $GO is ${ver:-of unknown version}; goref needs Go >= 1.19." >&2
  exit 1
fi

bin="$here/bin/goref"
if [[ -x "$bin" && "${1:-}" != "--force" ]]; then
  newer="$(find . -maxdepth 1 \( -name '*.go' ! -name '*_test.go' -o -name go.mod -o -name go.sum \) -newer "$bin" -print -quit)"
  if [[ -z "$newer" && "$(cat "$here/bin/.goversion" 2>/dev/null)" == "$ver" ]]; then
    echo "goref/build.sh: bin/goref is up to date ($ver)"
    exit 0
  fi
fi

mkdir -p bin
start=$(date +%s)
"$GO" build -o bin/goref.tmp .
mv -f bin/goref.tmp "$bin"
echo "$ver" > bin/.goversion
echo "goref/build.sh: built bin/goref with $ver in $(( $(date +%s) - start )) s"
