#!/usr/bin/env bash
# Builds helm from its pinned Go module (go.mod beside this file: helm.sh/helm/v4, a `tool`),
# CGO off, -trimpath, with helm's version ldflags, into a cache outside the tree keyed by go.sum
# (a second run is warm); prints that directory as its last line. For the chart checks of
# make deploy-test (deploy/tests/run puts it on PATH). Never commits anything.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || {
  echo "helm: Go is not installed; install Go >= 1.26 (the toolchain go.mod pins)" >&2
  exit 1
}
version=$(awk '$1=="helm.sh/helm/v4"{print $2; exit}' "$here/go.mod")
[ -n "$version" ] || { echo "helm: go.mod requires no helm.sh/helm/v4" >&2; exit 1; }
# Bump recipe when the build flags below change, so every cache built the old way is rebuilt.
recipe=1
key=$( (echo "recipe $recipe"; cat "$here/go.sum") | sha256sum | cut -c1-16)
cache_root=${GPUA_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-admission/helm}
out="$cache_root/$key"
if [ -x "$out/helm" ]; then echo "$out"; exit 0; fi

export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=mod
mkdir -p "$out.tmp"
start=$(date +%s)
echo "helm: building helm $version into $out (cold: a few minutes)" >&2
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$version"
ldflags+=" -X helm.sh/helm/v4/internal/version.gitTreeState=clean -X helm.sh/helm/v4/internal/version.metadata="
(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp/helm" helm.sh/helm/v4/cmd/helm)
mkdir -p "$out"
mv -f "$out.tmp/helm" "$out/helm"
rmdir "$out.tmp" 2>/dev/null || true
echo "helm: built in $(( $(date +%s) - start )) s" >&2
echo "$out"
