#!/usr/bin/env bash
# Fault injection for the live tests and for trying things by hand:
#   component.sh restart NAME   stop a component (kube-apiserver, etcd, kube-scheduler, ...) and
#                               start it again with the same command line; waits until it is ready
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
W=${GPUA_CLUSTER_DIR:-$(cd "$here/.." && pwd)/build/testcluster}
load_cluster "$W"
[ "${1:-}" = restart ] && [ -n "${2:-}" ] || die "usage: component.sh restart NAME"
restart "$2" "$W"
case "$2" in
  kube-apiserver) wait_for "$2" "$W" "${GPUA_CLUSTER_TIMEOUT:-120}" \
    "$BIN/kubectl" --kubeconfig "$W/admin.kubeconfig" get --raw=/readyz ;;
  etcd) wait_for "$2" "$W" "${GPUA_CLUSTER_TIMEOUT:-120}" curl -fsS "http://127.0.0.1:$ETCD_PORT/health" ;;
  kube-controller-manager) wait_for "$2" "$W" 120 curl -ksf "https://127.0.0.1:$KCM_PORT/healthz" ;;
  kube-scheduler) wait_for "$2" "$W" 120 curl -ksf "https://127.0.0.1:$SCHED_PORT/healthz" ;;
esac
