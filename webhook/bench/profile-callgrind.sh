#!/usr/bin/env bash
# Instructions per request of a server, counted by callgrind: a figure that does not depend on
# what else the (shared) machine is doing, for A/B claims about the request path.
#
#   webhook/bench/profile-callgrind.sh [webhook|null|nginx|all] [REQUESTS]
#
# Runs the server under callgrind twice, answering REQUESTS and 3 x REQUESTS keep-alive
# requests (h2load --h1, 4 connections, the bench's typical AdmissionReview), and prints
# (Ir(3N) - Ir(N)) / 2N: start-up, policy load and handshakes cancel out; the C++ heap
# allocations (calls of operator new: OpenSSL's own go through malloc) the same way. The profile of the
# larger run is kept in $BUILD_DIR/bench-results/callgrind.<server>.out for callgrind_annotate, the
# smaller one beside it (callgrind.<server>.small.out).
# Callgrind counts user-space instructions only: the kernel's share (TCP on loopback, epoll),
# which is the same for every server, is not in these figures, so their ratios exaggerate the
# differences that wall-clock throughput shows.
# The server's stdout goes through a pipe, as in `make bench`. Uses the binaries of
# BUILD_DIR (default build/perf; `make bench` builds them). SERVE_FLAGS: more flags for
# gpu-admission (e.g. "--log-level warn" to count what the decision log line costs).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/bench-env.sh"
which="${1:-all}"
n="${2:-1000}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
command -v h2load >/dev/null || { echo "h2load is needed (apt-get install nghttp2-client)" >&2; exit 2; }

certs="$build/bench-certs"
[ -f "$certs/server.crt" ] || bash certs/gen-dev-certs.sh "$certs" >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r policies "$work/policies"
"$bin/gpua_load" --dump-body "$work/review.json"

# nginx answers the null server's bytes: fetch them once from a null server run natively.
response() {
  local port pid
  port="$(free_port)"
  "$bin/gpua_null_server" --tls-cert "$certs/server.crt" --tls-key "$certs/server.key" \
    --listen "127.0.0.1:$port" >/dev/null &
  pid=$!
  wait_port "$port"
  curl -sk --data-binary "@$work/review.json" -H 'Content-Type: application/json' \
    "https://127.0.0.1:$port/mutate" -o "$work/response.json"
  kill "$pid"; wait "$pid" || true
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "server on port $1 did not come up" >&2; return 1
}

# Waits (up to 10 s) until the server on port $1 holds no connection but TIME-WAIT ones.
wait_closed() {
  command -v ss >/dev/null || { sleep 2; return 0; }
  for _ in $(seq 100); do
    [ -z "$(ss -Htn state all "( sport = :$1 )" | grep -v -e LISTEN -e TIME-WAIT)" ] && return 0
    sleep 0.1
  done
}

# Prints the total instruction count of one run answering $2 requests.
run() {  # server requests callgrind-file
  local server="$1" requests="$2" file="$3" port pid
  port="$(free_port)"
  local tls=(--tls-cert "$certs/server.crt" --tls-key "$certs/server.key")
  # No reload polling during the count: it runs on a timer, not per request.
  local cmd=("$bin/gpu-admission" serve --policies "$work/policies" --threads 1 "${tls[@]}"
    --reload-interval 60m ${SERVE_FLAGS:-}
    --listen "127.0.0.1:$port")
  [ "$server" = null ] && cmd=("$bin/gpua_null_server" --threads 1 "${tls[@]}" --listen "127.0.0.1:$port")
  if [ "$server" = nginx ]; then
    python3 webhook/bench/nginx_conf.py "$work/response.json" "$work/nginx.conf" "$port" \
      "$(cd "$certs" && pwd)" "$work"
    cmd=("$(command -v nginx || echo /usr/sbin/nginx)" -p "$work" -e "$work/nginx-error.log"
      -c "$work/nginx.conf")
  fi
  valgrind --tool=callgrind --callgrind-out-file="$file" "${cmd[@]}" \
    > >(cat >/dev/null) 2>"$work/valgrind.err" &
  pid=$!
  wait_port "$port"
  h2load --h1 -t 1 -c 4 -m 1 -n "$requests" -d "$work/review.json" \
    -H 'Content-Type: application/json' "https://127.0.0.1:$port/mutate?timeout=10s" \
    >"$work/h2load.txt" 2>&1
  grep -q "$requests succeeded" "$work/h2load.txt" ||
    { echo "not every request succeeded:" >&2; cat "$work/h2load.txt" >&2; kill "$pid"; return 1; }
  # The server (slow under valgrind) may not have seen every client close yet: a stop now would
  # find a different number of live connections in each run, and its shutdown work would not
  # cancel out.
  wait_closed "$port"
  kill -TERM "$pid"
  wait "$pid" || true
  sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$file"
}

profile() {
  local server="$1" small big newSmall newBig
  small="$(run "$server" "$n" "$out/callgrind.$server.small.out")"
  big="$(run "$server" $((3 * n)) "$out/callgrind.$server.out")"
  newSmall="$(python3 webhook/bench/callgrind_calls.py "$out/callgrind.$server.small.out")"
  newBig="$(python3 webhook/bench/callgrind_calls.py "$out/callgrind.$server.out")"
  python3 -c "print(f'$server: {($big - $small) / (2 * $n):,.0f} instructions per request ' \
    f'(callgrind, {3 * $n} and {$n} requests), ' \
    f'{($newBig - $newSmall) / (2 * $n):.2f} operator new per request')"
}

case "$which" in
  webhook | null) profile "$which" ;;
  nginx) response; profile nginx ;;
  all) response; profile nginx; profile null; profile webhook ;;
  *) echo "usage: $0 [webhook|null|nginx|all] [REQUESTS]" >&2; exit 2 ;;
esac
echo "profiles: callgrind_annotate --inclusive=yes $out/callgrind.<server>.out | head -60"
