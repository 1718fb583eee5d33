#!/usr/bin/env bash
# p99 under a flood (docs/performance.md): normal requests keep their p99 while 10,000 connection
# attempts flood the server. Runs gpu-admission (one I/O thread pinned to SERVER_CPU) and the
# same open-loop keep-alive load twice, back to back: alone, then while flood_connections.py
# opens FLOOD_CONNECTIONS connections from 10 source addresses that each send one byte and then
# nothing (beyond --max-connections-per-source and --max-connections they are closed at accept).
# Prints both p99s, their ratio, the server's peak RSS and the flood's counters. Called by
# run-all.sh (SKIP_FLOOD=1 skips it); on its own:
#   SKIP_BUILD=1 bash webhook/bench/flood.sh
# Environment: BUILD_DIR (build/perf), SECONDS_PER_RUN (5), SERVER_CPU (1), CLIENT_CPU (0),
# CONNS (16), FLOOD_RATE (req/s of the normal load, 1000), FLOOD_CONNECTIONS (10000).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/bench-env.sh"
rate="${FLOOD_RATE:-1000}"
attempts="${FLOOD_CONNECTIONS:-10000}"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUA_TESTS=OFF -DGPUA_BENCHMARKS=ON >/dev/null
  cmake --build "$build" -j "${JOBS:-$(nproc)}" --target gpu-admission gpua_load >/dev/null
fi

setup_work
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
taskset=""
can_pin "$server_cpu" && taskset="taskset -c $server_cpu"
$taskset "$bin/gpu-admission" serve --policies "$work/policies" --tls-cert "$certs/server.crt" \
  --tls-key "$certs/server.key" --listen "127.0.0.1:$port" --threads 1 >/dev/null 2>&1 &
hook=$!; pids+=("$hook")
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done

results="$out/flood.txt"
: >"$results"
echo "RESULT label=flood-loadavg before=$(cut -d' ' -f1 /proc/loadavg)" >>"$results"
load() {  # label
  pin "$client_cpu" "$bin/gpua_load" --port "$port" --server-pid "$hook" --label "$1" \
    --seconds "$secs" --warmup 1 --connections "$conns" --rate "$rate" |
    tee -a "$results" | grep -v '^RESULT' || true
}
echo "== flood: p99 of $rate req/s on $conns keep-alive connections, alone and during $attempts connection attempts"
load flood-baseline
# The flood starts first and is spread over the warm-up and the measured seconds.
# Started directly (taskset execs python), so that $! is the flooder itself.
clienttaskset=""
can_pin "$client_cpu" && clienttaskset="taskset -c $client_cpu"
$clienttaskset python3 webhook/bench/flood_connections.py "$port" "$attempts" "$((secs + 1))" \
  >"$work/flood.out" &
flooder=$!; pids+=("$flooder")
load flood-during
kill -TERM "$flooder"; wait "$flooder" || true
cat "$work/flood.out" >>"$results"
# The flood's sockets are gone; the server closes its ends within a moment (until then a new
# connection may still meet --max-connections).
metrics=""
for _ in $(seq 50); do
  metrics="$(curl -sk "https://127.0.0.1:$port/metrics")" && break
  sleep 0.1
done
rejections="$(awk '/^gpu_admission_overload_rejections_total/ {s += $2} END {print s + 0}' <<<"$metrics")"
echo "RESULT label=flood-rejections count=$rejections" >>"$results"
echo "RESULT label=flood-loadavg after=$(cut -d' ' -f1 /proc/loadavg)" >>"$results"
python3 - "$results" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("RESULT "):
        kv = dict(p.split("=", 1) for p in line.split()[1:])
        rows.setdefault(kv["label"], {}).update(kv)
base, during, flood = rows["flood-baseline"], rows["flood-during"], rows["flood"]
ratio = float(during["p99_us"]) / float(base["p99_us"])
print(f"p99 alone {float(base['p99_us'])/1000:.2f} ms, during the flood {float(during['p99_us'])/1000:.2f} ms "
      f"({ratio:.2f}x); errors {base['errors']} / {during['errors']}; server peak RSS "
      f"{during.get('server_peak_rss_mib', '?')} MiB; flood: {flood['connected']} connected, "
      f"{flood['closed_by_server']} closed by the server, {rows['flood-rejections']['count']} "
      f"overload rejections; load average {rows['flood-loadavg']['before']} -> {rows['flood-loadavg']['after']}")
PY
