#!/usr/bin/env bash
# The webhook as a local process of the test cluster (no kubelet runs pods here):
#   webhook.sh start [NAME [PORT]]   serve the policies on 127.0.0.1:PORT (default: the port the
#                                    webhook configurations point at), usage from the apiserver
#                                    through the shipped ServiceAccount's kubeconfig, quota
#                                    reservations in the install's namespace (its Role); waits
#                                    for /readyz. GPUA_WEBHOOK_ARGS: more serve flags
#   webhook.sh stop [NAME]           SIGTERM, as a kubelet stops a pod
#   webhook.sh rotate-cert           a new serving certificate from the same CA, swapped in as a
#                                    kubelet updates a Secret volume; prints its SHA-256 fingerprint
# NAME defaults to gpu-admission; the quota tests start replicas under other names.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
W=${GPUA_CLUSTER_DIR:-$(cd "$here/.." && pwd)/build/testcluster}
load_cluster "$W"
action=${1:?usage: webhook.sh start|stop [NAME [PORT]]}
name=${2:-gpu-admission}
port=${3:-$WEBHOOK_PORT}
certs="$W/install/overlay/certs"
serving="$W/serving"

# The serving certificate as a kubelet mounts a Secret: files behind a ..data symlink that a
# rotation swaps atomically (rotate-cert replaces the pair by one signed by the same CA).
publish_pair() {
  local gen="..$(date +%s%N)"
  mkdir -p "$serving/$gen"
  cp "$1" "$serving/$gen/tls.crt"
  cp "$2" "$serving/$gen/tls.key"
  ln -sfn "$gen" "$serving/..data.tmp"
  mv -T "$serving/..data.tmp" "$serving/..data"
  ln -sfn ..data/tls.crt "$serving/tls.crt"
  ln -sfn ..data/tls.key "$serving/tls.key"
}

case "$action" in
  rotate-cert)
    tmp=$(mktemp -d)
    openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/tls.key"
    openssl req -new -key "$tmp/tls.key" -subj "/CN=gpu-admission.gpu-admission.svc" 2>/dev/null |
      openssl x509 -req -CA "$certs/ca.crt" -CAkey "$certs/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
        -days 30 -sha256 -out "$tmp/tls.crt" -extfile <(printf '%s\n' \
        "subjectAltName=DNS:gpu-admission.gpu-admission.svc,DNS:localhost,IP:127.0.0.1" \
        "extendedKeyUsage=serverAuth") 2>/dev/null
    publish_pair "$tmp/tls.crt" "$tmp/tls.key"
    rm -rf "$tmp"
    openssl x509 -in "$serving/tls.crt" -noout -fingerprint -sha256
    ;;
  start)
    [ -e "$serving/..data" ] || publish_pair "$certs/server.crt" "$certs/server.key"
    export POD_NAME="$name"  # as the Deployment sets it: each replica signs its reservations
    start "$name" "$W" "$GPUA_BINARY" serve --policies "$POLICIES" \
      --tls-cert "$serving/tls.crt" --tls-key "$serving/tls.key" --listen "127.0.0.1:$port" \
      --kubeconfig "$W/gpu-admission.kubeconfig" --reservation-namespace gpu-admission \
      ${GPUA_WEBHOOK_ARGS:-}
    wait_for "$name" "$W" "${GPUA_CLUSTER_TIMEOUT:-120}" \
      curl -fsS --cacert "$certs/ca.crt" "https://127.0.0.1:$port/readyz"
    ;;
  stop) stop "$name" "$W" ;;
  *) die "usage: webhook.sh start|stop|rotate-cert [NAME [PORT]]" ;;
esac
