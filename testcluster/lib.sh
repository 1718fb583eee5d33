# Shared by up.sh, down.sh, webhook.sh and nodes.sh: process handling by recorded PID, readiness
# waits that name the component and show its log when it fails, PKI and kubeconfigs.
# shellcheck shell=bash

die() { echo "testcluster: $*" >&2; exit 1; }

# N free TCP ports on 127.0.0.1, space separated (bound together so they are distinct).
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()
EOF
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# start NAME W CMD...: runs CMD in its own session (so a signal to the test runner's process group
# does not reach it half-way, and down.sh can stop its whole group), output to W/logs/NAME.log.
start() {
  local name=$1 w=$2; shift 2
  mkdir -p "$w/cmd"
  printf '%q ' "$@" >"$w/cmd/$name"
  setsid "$@" >>"$w/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$w/pids/$name"
  grep -qx "$name" "$w/pids/order" 2>/dev/null || echo "$name" >>"$w/pids/order"
}

# Fails naming the component, with the last lines of its log.
component_failed() {
  local name=$1 w=$2 why=$3
  echo "testcluster: $name $why; last lines of $w/logs/$name.log:" >&2
  tail -n 25 "$w/logs/$name.log" >&2 2>/dev/null || true
  exit 1
}

# wait_for NAME W TIMEOUT CMD...: until CMD succeeds; fails early if NAME's process died.
wait_for() {
  local name=$1 w=$2 limit=$3; shift 3
  local deadline=$((SECONDS + limit)) pid=""
  [ -f "$w/pids/$name" ] && pid=$(cat "$w/pids/$name")
  until "$@" >/dev/null 2>&1; do
    if [ -n "$pid" ] && ! pid_alive "$pid"; then component_failed "$name" "$w" "exited during start-up"; fi
    [ $SECONDS -lt $deadline ] || component_failed "$name" "$w" "not ready after ${limit}s"
    sleep 0.3
  done
}

cluster_alive() {
  local w=$1 name
  [ -f "$w/pids/order" ] || return 1
  while read -r name; do pid_alive "$(cat "$w/pids/$name" 2>/dev/null)" || return 1; done <"$w/pids/order"
}

# stop NAME W: SIGTERM to the process group, SIGKILL after 10 s.
stop() {
  local name=$1 w=$2 pid
  pid=$(cat "$w/pids/$name" 2>/dev/null) || return 0
  if pid_alive "$pid"; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do pid_alive "$pid" || break; sleep 0.1; done
    pid_alive "$pid" && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$w/pids/$name"
}

# restart NAME W: stops NAME and starts it again with the command line it was started with.
restart() {
  local name=$1 w=$2 cmd
  cmd=$(cat "$w/cmd/$name") || die "$name was never started in $w"
  stop "$name" "$w"
  eval "start $name $w $cmd"
}

# The cluster's PKI (openssl): one CA for the apiserver and its clients, client certificates for
# the admin (system:masters), the controller manager and the scheduler, the service account key.
make_pki() {
  local p=$1
  (
    cd "$p"
    ca() { openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=$2" -keyout "$1.key" -out "$1.crt" 2>/dev/null; }
    leaf() { # name subject extendedKeyUsage [subjectAltName]
      openssl req -new -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" \
        -addext "extendedKeyUsage=$3" ${4:+-addext "subjectAltName=$4"} 2>/dev/null |
        openssl x509 -req -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -copy_extensions copyall \
          -out "$1.crt" 2>/dev/null
    }
    ca ca gpu-admission-test-cluster-ca
    leaf apiserver /CN=kube-apiserver serverAuth \
      "IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.0.0.1"
    leaf admin "/O=system:masters/CN=test-admin" clientAuth
    leaf kcm /CN=system:kube-controller-manager clientAuth
    leaf scheduler /CN=system:kube-scheduler clientAuth
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  )
}

b64() { base64 -w0 <"$1"; }

# write_kubeconfig FILE SERVER CA USER_FIELDS: one cluster, one user, one context.
write_kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "$2", certificate-authority-data: $(b64 "$3")}
users:
- name: user
  user: {$4}
contexts:
- name: test
  context: {cluster: test, user: user}
current-context: test
EOF
}

write_cert_kubeconfig() { # file server ca cert key
  write_kubeconfig "$1" "$2" "$3" "client-certificate-data: $(b64 "$4"), client-key-data: $(b64 "$5")"
}

write_token_kubeconfig() { # file server ca token
  write_kubeconfig "$1" "$2" "$3" "token: \"$4\""
}

# load_cluster W: the variables up.sh recorded for the cluster in W (ports, binaries, policies).
load_cluster() {
  [ -f "$1/env" ] || die "no cluster in $1 (make cluster-up)"
  # shellcheck disable=SC1091
  source "$1/env"
}

# The kit installed as a platform team installs it with deploy/overlays/self-signed: step one, an
# overlay of theirs (a copy of the self-signed overlay, certs from certs/gen-dev-certs.sh, plus
# the example policy the cluster serves and its global default priority class), and step two
# beside it (that overlay plus deploy/components/webhooks/self-signed), from a scratch directory
# so the source tree stays clean. Writes W/install/objects.yaml (step one), W/install/step2.yaml
# (step two but the webhook configurations) and W/install/webhooks.yaml (the webhook
# configurations). Fails if step one registers any webhook.
render_self_signed() {
  local root=$1 w=$2 o="$2/install/overlay" hooks="$2/install/webhooks-step"
  mkdir -p "$o" "$hooks"
  bash "$root/certs/gen-dev-certs.sh" "$o/certs" 2>/dev/null
  # kustomize takes only relative paths to other kustomizations: ../../X of the overlay is deploy/X.
  python3 - "$root" "$o" "$hooks" <<'PY'
import os, re, sys
root, o, hooks = sys.argv[1:4]
text = open(os.path.join(root, "deploy/overlays/self-signed/kustomization.yaml")).read()
rel = lambda p, d=o: os.path.relpath(os.path.join(root, "deploy", p), d)
text, n = re.subn(r"^- \.\./\.\./(\S+)$", lambda m: "- " + rel(m.group(1)), text, flags=re.M)
if n < 2: sys.exit("testcluster: the self-signed overlay no longer names ../../base and ../../references")
text += "components:\n- %s\n- %s\n" % (rel("components/example-policy"), rel("components/default-priority"))
open(os.path.join(o, "kustomization.yaml"), "w").write(text)
open(os.path.join(hooks, "kustomization.yaml"), "w").write(
    "resources: [../overlay]\ncomponents: [%s]\n" % rel("components/webhooks/self-signed", hooks))
PY
  "$BIN/kubectl" kustomize "$o" >"$w/install/rendered.yaml"
  "$BIN/kubectl" kustomize "$hooks" >"$w/install/rendered-step2.yaml"
  python3 - "$w/install" <<'PY'
import sys, re
d = sys.argv[1]
split = lambda f: [x for x in re.split(r"^---\n", open(f).read(), flags=re.M) if x.strip()]
is_hook = lambda doc: re.search(r"^kind: (Mutating|Validating)WebhookConfiguration$", doc, re.M)
step1, step2 = split(d + "/rendered.yaml"), split(d + "/rendered-step2.yaml")
if any(is_hook(x) for x in step1):
    sys.exit("testcluster: step one of the install registers a webhook; it must wait for a Ready replica")
hooks = [x for x in step2 if is_hook(x)]
if len(hooks) != 2: sys.exit("testcluster: expected 2 webhook configurations in step two, got %d" % len(hooks))
open(d + "/objects.yaml", "w").write("---\n".join(step1))
open(d + "/webhooks.yaml", "w").write("---\n".join(hooks))
open(d + "/step2.yaml", "w").write("---\n".join(x for x in step2 if not is_hook(x)))
PY
}

# install_step_two W BASE_URL: step two of the install (render_self_signed), every webhook's
# clientConfig pointing at BASE_URL (webhook_url.sh).
install_step_two() {
  local w=$1 base=$2
  "$BIN/kubectl" apply -f "$w/install/step2.yaml"
  bash "$(dirname "${BASH_SOURCE[0]}")/webhook_url.sh" "$w/install/webhooks.yaml" "$base" >"$w/install/webhooks-local.yaml"
  "$BIN/kubectl" apply -f "$w/install/webhooks-local.yaml"
}

# The marker: a server-side dry run of a GPU pod in a judged namespace comes back with the
# webhook's class annotation only once the apiserver calls it.
wait_for_marker() {
  local w=$1 limit=$2 deadline=$(( SECONDS + $2 ))
  "$BIN/kubectl" apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: gpua-marker, labels: {team: marker, env: staging}}
EOF
  until "$BIN/kubectl" -n gpua-marker create --dry-run=server -o jsonpath='{.metadata.annotations}' -f - \
      2>/dev/null <<'EOF' | grep -q 'gpu-admission.io/class'; do
apiVersion: v1
kind: Pod
metadata: {name: marker, labels: {app: marker, gpu-admission.io/class: training}}
spec:
  containers:
  - name: c
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    resources: {limits: {nvidia.com/gpu: "1"}}
EOF
    pid_alive "$(cat "$w/pids/gpu-admission" 2>/dev/null)" || component_failed gpu-admission "$w" "exited"
    [ $SECONDS -lt $deadline ] || component_failed gpu-admission "$w" \
      "was never called by the apiserver within ${limit}s (marker dry-run not mutated)"
    sleep 0.5
  done
}
