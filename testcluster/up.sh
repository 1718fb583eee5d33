#!/usr/bin/env bash
# make cluster-up: a real Kubernetes control plane on 127.0.0.1 as plain processes (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler), the fake GPU nodes of nodes.yaml, and
# gpu-admission installed the way a user installs it (deploy/overlays/self-signed rendered and
# applied with kubectl; only clientConfig.service becomes a local URL, see webhook_url.sh) with
# `serve` running as a local process under the shipped ServiceAccount's RBAC.
#
# Returns once a marker request proves the apiserver calls the webhook; the last line printed is
# `export KUBECONFIG=...`. State lives in $GPUA_CLUSTER_DIR (default build/testcluster);
# testcluster/down.sh (make cluster-down) stops every process by its recorded PID.
#
#   GPUA_CLUSTER_POLICIES   policies `serve` loads (default: policies/, whatever deploy/ ships)
#   GPUA_BINARY             gpu-admission binary (default build/release/bin/gpu-admission)
#   GPUA_CLUSTER_TIMEOUT    seconds each component may take to become ready (default 120)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/lib.sh"

W=${GPUA_CLUSTER_DIR:-$root/build/testcluster}
binary=${GPUA_BINARY:-$root/build/release/bin/gpu-admission}
policies=${GPUA_CLUSTER_POLICIES:-$root/policies}
timeout=${GPUA_CLUSTER_TIMEOUT:-120}

if [ -f "$W/env" ] && cluster_alive "$W"; then
  echo "testcluster: already up in $W (make cluster-down stops it)" >&2
  echo "export KUBECONFIG=$W/admin.kubeconfig"
  exit 0
fi
[ -x "$binary" ] || die "no gpu-admission binary at $binary (make build first)"
command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
command -v curl >/dev/null || die "curl not found (apt-get install curl)"
bin=$("$here/build.sh" | tail -n1)
export BIN=$bin

# A half-started cluster must not outlive a failed start.
"$here/down.sh" >/dev/null 2>&1 || true
mkdir -p "$W"/{pki,logs,pids,etcd} "$W"/static/{validating,mutating}
trap 'status=$?; [ $status -eq 0 ] || { echo "testcluster: start failed; stopping what was started" >&2; "$here/down.sh" >&2 || true; }' EXIT

read -r etcd_port peer_port api_port kcm_port sched_port webhook_port < <(free_ports 6)
cat >"$W/env" <<EOF
BIN=$bin
API_PORT=$api_port
WEBHOOK_PORT=$webhook_port
ETCD_PORT=$etcd_port
KCM_PORT=$kcm_port
SCHED_PORT=$sched_port
GPUA_BINARY=$binary
POLICIES=$policies
EOF

make_pki "$W/pki"
for user in admin kcm scheduler; do
  write_cert_kubeconfig "$W/$user.kubeconfig" "https://127.0.0.1:$api_port" "$W/pki/ca.crt" \
    "$W/pki/$user.crt" "$W/pki/$user.key"
done
export KUBECONFIG="$W/admin.kubeconfig"
kubectl() { "$bin/kubectl" "$@"; }

start etcd "$W" "$bin/etcd" --name=t --data-dir="$W/etcd" \
  --listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
  --listen-peer-urls="http://127.0.0.1:$peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
  --initial-cluster="t=http://127.0.0.1:$peer_port" --unsafe-no-fsync=true --log-level=warn
wait_for etcd "$W" "$timeout" curl -fsS "http://127.0.0.1:$etcd_port/health"

# Static admission policies (KEP-5793, ManifestBasedAdmissionControlConfig: beta and on by default
# in 1.37): two directories the apiserver re-reads once a minute. Empty they hold no policy, so no
# suite sees a difference; TestLive/NativeBackstop writes `compile --static` there and removes it.
cat >"$W/admission-configuration.yaml" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: "$W/static/validating"
- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: "$W/static/mutating"
EOF

# Default admission plugins (Priority, ResourceQuota, TaintNodesByCondition, webhooks...) all on.
start kube-apiserver "$W" "$bin/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=127.0.0.1 --secure-port="$api_port" \
  --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
  --tls-cert-file="$W/pki/apiserver.crt" --tls-private-key-file="$W/pki/apiserver.key" \
  --client-ca-file="$W/pki/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$W/pki/sa.pub" --service-account-signing-key-file="$W/pki/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 \
  --authorization-mode=Node,RBAC --allow-privileged=true --profiling=false --v=1 \
  --admission-control-config-file="$W/admission-configuration.yaml"
wait_for kube-apiserver "$W" "$timeout" kubectl get --raw=/readyz

# No kubelet heartbeats the fake nodes: the node lifecycle controller would mark them Unknown and
# taint them, so it is off (tests add the taints it would add themselves).
start kube-controller-manager "$W" "$bin/kube-controller-manager" \
  --kubeconfig="$W/kcm.kubeconfig" \
  --authentication-kubeconfig="$W/kcm.kubeconfig" --authorization-kubeconfig="$W/kcm.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$kcm_port" \
  --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics \
  --leader-elect=false --controllers='*,-node-lifecycle-controller' \
  --service-account-private-key-file="$W/pki/sa.key" --root-ca-file="$W/pki/ca.crt" \
  --cluster-signing-cert-file="$W/pki/ca.crt" --cluster-signing-key-file="$W/pki/ca.key" \
  --use-service-account-credentials=true --v=1
start kube-scheduler "$W" "$bin/kube-scheduler" \
  --kubeconfig="$W/scheduler.kubeconfig" \
  --authentication-kubeconfig="$W/scheduler.kubeconfig" --authorization-kubeconfig="$W/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$sched_port" \
  --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics \
  --leader-elect=false --v=1
wait_for kube-controller-manager "$W" "$timeout" curl -ksf "https://127.0.0.1:$kcm_port/healthz"
wait_for kube-scheduler "$W" "$timeout" curl -ksf "https://127.0.0.1:$sched_port/healthz"
wait_for kube-controller-manager "$W" "$timeout" kubectl -n default get serviceaccount default

"$here/nodes.sh" apply "$root/testcluster/nodes.yaml"

# The install kit in its two documented steps (docs/install.md): step one (everything but the
# webhook registrations), then, once a replica is ready (here the local process's /readyz, which
# webhook.sh start waits for), step two. The live suite InstallOrder replays it with checks.
render_self_signed "$root" "$W"
kubectl apply -f "$W/install/objects.yaml" >"$W/logs/install.log"
wait_for serviceaccount "$W" "$timeout" kubectl -n gpu-admission get serviceaccount gpu-admission
write_token_kubeconfig "$W/gpu-admission.kubeconfig" "https://127.0.0.1:$api_port" "$W/pki/ca.crt" \
  "$(kubectl -n gpu-admission create token gpu-admission --duration=48h)"

"$here/webhook.sh" start
install_step_two "$W" "https://127.0.0.1:$webhook_port" >>"$W/logs/install.log"
wait_for_marker "$W" "$timeout"

trap - EXIT
echo "testcluster: up in $W (apiserver https://127.0.0.1:$api_port, webhook https://127.0.0.1:$webhook_port)" >&2
echo "export KUBECONFIG=$W/admin.kubeconfig"
