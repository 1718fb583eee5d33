#!/usr/bin/env bash
# make cluster-down: stops every process up.sh started (by recorded PID, newest first: the
# webhook replicas, the scheduler, the controller manager, the apiserver, etcd) and removes the
# scratch state. Safe to run when nothing is up.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
W=${GPUA_CLUSTER_DIR:-$(cd "$here/.." && pwd)/build/testcluster}
[ -d "$W" ] || exit 0
if [ -f "$W/pids/order" ]; then
  tac "$W/pids/order" | while read -r name; do stop "$name" "$W"; done
fi
for f in "$W"/pids/*; do [ -f "$f" ] && [ "$(basename "$f")" != order ] && stop "$(basename "$f")" "$W"; done
# Keep the logs of a failed run for whoever reads the test output; the rest goes.
if [ -n "${GPUA_CLUSTER_KEEP_LOGS:-}" ]; then
  find "$W" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
else
  rm -rf "$W"
fi
echo "testcluster: down" >&2
