#!/usr/bin/env bash
# Builds the test control plane from its pinned Go modules (testcluster/go.mod, etcd/go.mod):
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and etcd, CGO off, -trimpath,
# version ldflags set. The binaries go to a cache outside the tree keyed by both go.sum files, so
# a second run is warm; prints that directory as its last line. Never commits anything.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || {
  echo "testcluster: Go is not installed; install Go >= 1.26 (the toolchain the helper modules pin)" >&2
  exit 1
}
k8s_version=$(sed -n 's#^require k8s.io/kubernetes \(v[0-9.]*\)$#\1#p' "$here/go.mod")
[ -n "$k8s_version" ] || k8s_version=$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "$here/go.mod")
etcd_version=$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2; exit}' "$here/etcd/go.mod")
# Bump recipe when the build flags below change, so every cache built the old way is rebuilt.
recipe=1
key=$( (echo "recipe $recipe"; cat "$here/go.sum" "$here/etcd/go.sum") | sha256sum | cut -c1-16)
cache_root=${GPUA_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-admission/testbin}
out="$cache_root/$key"
all=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd)
missing=()
for b in "${all[@]}"; do [ -x "$out/$b" ] || missing+=("$b"); done
if [ "${#missing[@]}" -eq 0 ]; then echo "$out"; exit 0; fi

export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=mod
mkdir -p "$out.tmp"
minor=${k8s_version#v1.}; minor=${minor%%.*}
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean"
  ldflags+=" -X $pkg.buildDate=$now"
done
start=$(date +%s)
echo "testcluster: building Kubernetes $k8s_version and etcd $etcd_version into $out (cold: 15-25 minutes on 2 cores, 2.7 GB of memory)" >&2
(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
etcd_ld="-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=${etcd_version}"
(cd "$here/etcd" && go build -trimpath -ldflags "$etcd_ld" -o "$out.tmp/etcd" go.etcd.io/etcd/server/v3)
mkdir -p "$out"
for b in "${all[@]}"; do mv -f "$out.tmp/$b" "$out/$b"; done
rmdir "$out.tmp" 2>/dev/null || true
echo "testcluster: built in $(( $(date +%s) - start )) s" >&2
echo "$out"
