#!/usr/bin/env bash
# The performance harness in one command (`make bench`): builds Release, runs the Google
# Benchmark suites (engine, usage ledger, policy load), then the TLS load comparison of
# gpu-admission against the null server, and prints the figures, the ratios and the targets.
#
# Topology on a 2-core machine: each server runs with ONE I/O thread pinned to CPU 1 and the
# load generator runs single-threaded pinned to CPU 0, so client and server never steal each
# other's core. Every server is measured the same way in the same run, with its stdout going
# through a pipe (read by `cat` on the client's CPU), as in a container.
#
# Two ceilings: the project's null server (same server code, constant response, no engine) and
# an independent one, nginx from Debian (one worker, the same certificate, the same response
# bytes from `return 200`). Two load generators: the project's gpua_load (latency percentiles,
# open loop, server CPU) and an independent one, h2load --h1 from Debian's nghttp2-client
# (closed-loop throughput). nginx and h2load are installed when missing.
#
# Environment: BUILD_DIR (default build/perf), SECONDS_PER_RUN (default 5), SERVER_CPU (1),
# CLIENT_CPU (0), CONNS (16), MIXED_REQUESTS (1000000), SKIP_BUILD=1, SKIP_MICRO=1 (load only), SKIP_LOAD=1,
# SKIP_FLOOD=1 (no p99-under-a-connection-flood run, webhook/bench/flood.sh), SKIP_CALLGRIND=1
# (no instruction count, webhook/bench/profile-callgrind.sh),
# LOG_LEVEL (gpu-admission's --log-level; default: its default, info).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/bench-env.sh"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "== building Release (-O3 -DNDEBUG, CMake's standard flags) in $build"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUA_TESTS=OFF -DGPUA_BENCHMARKS=ON >/dev/null
  cmake --build "$build" -j "${JOBS:-$(nproc)}" --target gpu-admission gpua_engine_bench \
    gpua_ledger_bench gpua_supply_bench gpua_policy_bench gpua_service_bench gpua_load gpua_null_server >/dev/null
fi

# The independent ceiling and load generator, from Debian (not needed by `make test`).
install_bench_tools() {
  local missing=()
  command -v h2load >/dev/null || missing+=(nghttp2-client)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "== installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}


if [ "${SKIP_MICRO:-0}" != 1 ]; then
  echo "== engine: parse -> decide -> patch -> response (vs. RapidJSON parse of the same bytes)"
  pin "$client_cpu" "$bin/gpua_engine_bench" --benchmark_min_time=0.5 \
    --benchmark_out="$out/engine.json" --benchmark_out_format=json
  echo "== webhook handler around the review: metrics and the decision log line"
  pin "$client_cpu" "$bin/gpua_service_bench" --benchmark_min_time=0.5 \
    --benchmark_out="$out/service.json" --benchmark_out_format=json
  echo "== usage ledger: 100,000 pods"
  pin "$client_cpu" "$bin/gpua_ledger_bench" --benchmark_min_time=0.5 \
    --benchmark_out="$out/ledger.json" --benchmark_out_format=json
  echo "== supply ledger: 5,000 nodes, 100,000 pods bound to them"
  pin "$client_cpu" "$bin/gpua_supply_bench" --benchmark_min_time=0.5 \
    --benchmark_out="$out/supply.json" --benchmark_out_format=json
  echo "== policy load"
  pin "$client_cpu" "$bin/gpua_policy_bench" --benchmark_min_time=0.5 \
    --benchmark_out="$out/policy.json" --benchmark_out_format=json
fi

if [ "${SKIP_LOAD:-0}" != 1 ]; then
  install_bench_tools
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
  setup_work
  taskset=""
  can_pin "$server_cpu" && taskset="taskset -c $server_cpu"
  reader="cat"  # the pipe's reader runs on the client's CPU, like a container runtime elsewhere
  can_pin "$client_cpu" && reader="taskset -c $client_cpu cat"
  results="$out/load.txt"
  : >"$results"
  loadavg_before="$(cut -d' ' -f1 /proc/loadavg)"
  # CPU time the hypervisor gave to other guests (steal), and all CPU time, in ticks: on a shared
  # host the load average can be low while the cores are not ours.
  cpu_ticks() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
  ticks_before="$(cpu_ticks)"
  "$bin/gpua_load" --dump-body "$work/review.json"

  free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
  wait_port() {
    for _ in $(seq 100); do
      (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
      sleep 0.05
    done
    echo "server on port $1 did not come up" >&2; return 1
  }
  # Every server is started directly (not through a pipeline or shell function), so that $! is
  # the server's own pid; its stdout goes to a pipe through process substitution.
  start_null() {  # [real|tiny]: the response gpu-admission sends for the pod, or a tiny one
    null_port="$(free_port)"
    $taskset "$bin/gpua_null_server" --tls-cert "$certs/server.crt" \
      --tls-key "$certs/server.key" --listen "127.0.0.1:$null_port" --threads 1 \
      --response "${1:-real}" > >($reader >/dev/null) &
    null_pid=$!; pids+=("$null_pid"); wait_port "$null_port"
  }
  start_webhook() {
    hook_port="$(free_port)"
    $taskset "$bin/gpu-admission" serve --policies "$work/policies" \
      --tls-cert "$certs/server.crt" --tls-key "$certs/server.key" \
      --listen "127.0.0.1:$hook_port" --threads 1 --reload-interval 100ms \
      ${LOG_LEVEL:+--log-level "$LOG_LEVEL"} > >($reader >/dev/null) 2>"$work/serve.err" &
    hook_pid=$!; pids+=("$hook_pid"); wait_port "$hook_port"
  }
  # nginx with one process (master_process off: the process that answers is the pid we
  # measure), the same certificate, and the null server's response bytes from `return 200`.
  start_nginx() {
    nginx_port="$(free_port)"
    python3 webhook/bench/nginx_conf.py "$work/response.json" "$work/nginx.conf" "$nginx_port" \
      "$(cd "$certs" && pwd)" "$work"
    $taskset "$nginx_bin" -p "$work" -e "$work/nginx-error.log" -c "$work/nginx.conf" \
      > >($reader >/dev/null) &
    nginx_pid=$!; pids+=("$nginx_pid"); wait_port "$nginx_port"
    # Same bytes as the null server, or the ceiling is not like-for-like.
    curl -sk --data-binary "@$work/review.json" -H 'Content-Type: application/json' \
      "https://127.0.0.1:$nginx_port/mutate" -o "$work/nginx-response.json"
    cmp -s "$work/response.json" "$work/nginx-response.json" ||
      { echo "nginx does not answer the null server's bytes" >&2; return 1; }
  }
  stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
  load() {  # label port pid extra-args...
    local label="$1" port="$2" pid="$3"; shift 3
    pin "$client_cpu" "$bin/gpua_load" --port "$port" --server-pid "$pid" --label "$label" \
      --seconds "$secs" --warmup 1 "$@" | tee -a "$results" | grep -v '^RESULT' || true
  }
  # h2load: HTTP/1.1 over TLS, one thread on the client's CPU, the same connections and body.
  h2() {  # label port
    local label="$1" port="$2"
    pin "$client_cpu" h2load --h1 -t 1 -c "$conns" -m 1 -D "${secs%.*}" --warm-up-time 1 \
      -d "$work/review.json" -H 'Content-Type: application/json' \
      "https://127.0.0.1:$port/mutate?timeout=10s" >"$work/h2load.txt" 2>&1 || true
    if python3 - "$label" "$work/h2load.txt" >>"$results" <<'PY'
import re, sys
text = open(sys.argv[2]).read()
rps = re.search(r"finished in [^,]+, ([0-9.]+) req/s", text)
req = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", text)
codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
if not (rps and req and codes):
    sys.exit("h2load output not understood:\n" + text)
errors = int(req.group(3)) + int(req.group(4)) + sum(int(codes.group(i)) for i in (2, 3, 4))
print(f"RESULT label={sys.argv[1]} h2load=1 rps={float(rps.group(1)):.1f} requests={req.group(2)} errors={errors}")
PY
    then tail -1 "$results"; else echo "$label: no result (see above)" >&2; fi
  }
  field() { grep "^RESULT label=$1 " "$results" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

  echo "== load: keep-alive, closed loop, $conns connections (server: 1 thread on CPU $server_cpu; client: CPU $client_cpu)"
  # The old ceiling first (a ~150-byte response), kept for transparency; then the like-for-like
  # ones (gpu-admission's own response bytes, no engine per request).
  start_null tiny
  load null-tiny-max "$null_port" "$null_pid" --connections "$conns"
  stop "$null_pid"
  start_null real
  curl -sk --data-binary "@$work/review.json" -H 'Content-Type: application/json' \
    "https://127.0.0.1:$null_port/mutate" -o "$work/response.json"
  start_nginx
  start_webhook
  load nginx-max "$nginx_port" "$nginx_pid" --connections "$conns"
  load null-max "$null_port" "$null_pid" --connections "$conns"
  load webhook-max "$hook_port" "$hook_pid" --connections "$conns"
  echo "== load: the same with h2load --h1 (independent load generator)"
  h2 h2load-nginx "$nginx_port"
  h2 h2load-null "$null_port"
  h2 h2load-webhook "$hook_port"
  half="$(python3 -c "print(int(float('$(field webhook-max rps)')/2))")"
  echo "== load: keep-alive, open loop at half of gpu-admission's maximum ($half req/s)"
  load webhook-half "$hook_port" "$hook_pid" --connections "$conns" --rate "$half"
  load nginx-half "$nginx_port" "$nginx_pid" --connections "$conns" --rate "$half"
  load null-half "$null_port" "$null_pid" --connections "$conns" --rate "$half"
  stop "$nginx_pid"

  echo "== load: no keep-alive (one TLS handshake per request), 4 connections"
  load webhook-handshake "$hook_port" "$hook_pid" --connections 4 --no-keepalive --no-resume
  load webhook-resume "$hook_port" "$hook_pid" --connections 4 --no-keepalive
  load null-handshake "$null_port" "$null_pid" --connections 4 --no-keepalive --no-resume
  load null-resume "$null_port" "$null_pid" --connections 4 --no-keepalive
  echo "== load: policy reload every 200 ms during an open-loop run at $half req/s"
  reloads_before="$(curl -sk "https://127.0.0.1:$hook_port/metrics" | awk '/^gpu_admission_policy_reload[a-z_]*\{result="success"\}/ {print $2}')"
  (
    i=0
    end=$((SECONDS + ${secs%.*} + 2))
    while [ "$SECONDS" -lt "$end" ]; do
      i=$((i + 1)); echo "# bench reload $i" >>"$work/policies/40-quotas-and-rollout.yaml"; sleep 0.2
    done
  ) &
  editor=$!
  load webhook-reload "$hook_port" "$hook_pid" --connections "$conns" --rate "$half"
  wait "$editor" || true
  sleep 0.3
  reloads_after="$(curl -sk "https://127.0.0.1:$hook_port/metrics" | awk '/^gpu_admission_policy_reload[a-z_]*\{result="success"\}/ {print $2}')"
  echo "RESULT label=reloads count=$(python3 -c "print(int(float('${reloads_after:-0}')-float('${reloads_before:-0}')))")" >>"$results"
  stop "$null_pid"

  # Memory over 10^6 mixed requests (MIXED_REQUESTS): typical reviews at /mutate, small ones at
  # /validate and the largest benchmark pod (218 KB) at /mutate, all at once, on the server that
  # has run everything above; its RSS after the first tenth and at the end. Flat means what a
  # large request takes (body, parse, response) is given back.
  mixed_total="${MIXED_REQUESTS:-1000000}"
  echo "== memory: $mixed_total mixed requests (typical /mutate, small /validate, large /mutate)"
  "$bin/gpua_load" --pod small --dump-body "$work/small.json"
  "$bin/gpua_load" --pod large --dump-body "$work/large.json"
  mixed() {  # requests: 1% large on 2 connections, 10% small on 4, the rest typical on 10
    local n="$1" large=$(($1 / 100)) small=$(($1 / 10)) url="https://127.0.0.1:$hook_port"
    local h=(h2load --h1 -t 1 -m 1 -H 'Content-Type: application/json')
    pin "$client_cpu" "${h[@]}" -c 2 -n "$large" -d "$work/large.json" "$url/mutate" >"$work/mixed-large.txt" 2>&1 &
    local a=$!
    pin "$client_cpu" "${h[@]}" -c 4 -n "$small" -d "$work/small.json" "$url/validate" >"$work/mixed-small.txt" 2>&1 &
    local b=$!
    pin "$client_cpu" "${h[@]}" -c 10 -n "$((n - large - small))" -d "$work/review.json" "$url/mutate" >"$work/mixed-typical.txt" 2>&1
    wait "$a" "$b" || true
    # Requests that did not succeed with a 2xx (a deny is a 200 with allowed: false).
    cat "$work"/mixed-*.txt | python3 -c '
import re, sys
text = sys.stdin.read()
done = sum(int(m.group(1)) for m in re.finditer(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", text))
ok = sum(int(m.group(1)) for m in re.finditer(r"status codes: (\d+) 2xx", text))
print(int(sys.argv[1]) - min(done, ok))' "$n"
  }
  rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
  mixed_errors="$(mixed $((mixed_total / 10)))"
  rss_warm="$(rss_kib "$hook_pid")"
  mixed_errors=$((mixed_errors + $(mixed $((mixed_total - mixed_total / 10)))))
  rss_end="$(rss_kib "$hook_pid")"
  echo "RESULT label=rss-mixed requests=$mixed_total warm_kib=$rss_warm end_kib=$rss_end errors=$mixed_errors" |
    tee -a "$results"
  stop "$hook_pid"
  steal_pct="$(python3 -c "
b, a = '$ticks_before'.split(), '$(cpu_ticks)'.split()
total = int(a[1]) - int(b[1])
print(f'{100 * (int(a[0]) - int(b[0])) / total:.1f}' if total > 0 else '0')")"
  echo "RESULT label=loadavg before=$loadavg_before after=$(cut -d' ' -f1 /proc/loadavg) steal=$steal_pct" >>"$results"
fi

if [ "${SKIP_FLOOD:-0}" != 1 ]; then
  BUILD_DIR="$build" SKIP_BUILD=1 bash webhook/bench/flood.sh
fi

# Instructions per request: machine-independent, so counted after the timed runs (callgrind
# slows the server about 50x; nothing else is measured meanwhile). SKIP_CALLGRIND=1 skips it.
if [ "${SKIP_CALLGRIND:-0}" != 1 ] && command -v valgrind >/dev/null; then
  echo "== instructions per request (callgrind, the typical review, /mutate)"
  BUILD_DIR="$build" bash webhook/bench/profile-callgrind.sh webhook 1000 | tee "$out/callgrind.txt"
fi

echo
python3 webhook/bench/summarize.py "$out"
