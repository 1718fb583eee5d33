#!/usr/bin/env bash
# Fake GPU nodes on the test control plane.
#   nodes.sh apply FILE   create or update the Node objects of FILE (labels, taints, capacity,
#                         allocatable, a Ready condition), then remove the
#                         node.kubernetes.io/not-ready taint that the TaintNodesByCondition
#                         admission plugin adds at creation (no node lifecycle controller runs to
#                         remove it, because no kubelet heartbeats)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
W=${GPUA_CLUSTER_DIR:-$(cd "$here/.." && pwd)/build/testcluster}
load_cluster "$W"
export KUBECONFIG="$W/admin.kubeconfig"
k() { "$BIN/kubectl" "$@"; }
[ "${1:-}" = apply ] && [ -f "${2:-}" ] || die "usage: nodes.sh apply FILE"
names=$(k apply -f "$2" -o name)
# status is a subresource once a Node exists: write it again so a changed FILE takes effect.
python3 - "$2" <<'PY' | while read -r name patch; do k patch node "$name" --subresource=status --type=merge -p "$patch" >/dev/null; done
import json, sys
text = open(sys.argv[1]).read()
items = []
for line in text.splitlines():
    if line.startswith("- {"): items.append(json.loads(line[2:]))
for n in items:
    print(n["metadata"]["name"], json.dumps({"status": n["status"]}, separators=(",", ":")))
PY
for n in $names; do
  n=${n#node/}
  if k get node "$n" -o jsonpath='{.spec.taints[*].key}' | grep -qw node.kubernetes.io/not-ready; then
    k taint node "$n" node.kubernetes.io/not-ready:NoSchedule- >/dev/null
  fi
done
echo "testcluster: nodes: $(echo $names | wc -w) applied" >&2
