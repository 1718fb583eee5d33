#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build/fuzz and runs each one for a
# bounded time on a copy of its committed seed corpus. Part of `make test`; a longer run:
#   FUZZ_SECONDS=1800 make fuzz            (or FUZZ_TARGETS="review watch" for a subset)
# Inputs that find something land in build/fuzz/crashes/<target>/ and the run fails; each one
# becomes a unit test (docs/reliability.md says how).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-20}
jobs=${JOBS:-2}
targets=${FUZZ_TARGETS:-review review_reader policy quantity watch dra http_session}
cmake -S webhook/fuzz -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >/dev/null
cmake --build build/fuzz -j "$jobs" >/dev/null
declare -A maxlen=([review]=65536 [review_reader]=65536 [policy]=16384 [quantity]=256 [watch]=65536 [dra]=32768 [http_session]=32768)
declare -A dict=([http_session]=webhook/fuzz/http.dict)
status=0
for t in $targets; do
  work=build/fuzz/corpus/$t
  crashes=build/fuzz/crashes/$t
  log=build/fuzz/$t.log
  mkdir -p "$work" "$crashes"
  if ! ./build/fuzz/bin/fuzz_"$t" -max_total_time="$seconds" -max_len="${maxlen[$t]}" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -dict="${dict[$t]:-webhook/fuzz/kubernetes.dict}" \
      -artifact_prefix="$crashes/" "$work" "webhook/fuzz/corpus/$t" >"$log" 2>&1; then
    echo "fuzz_$t: FAILED, input saved in $crashes/ (log: $log)" >&2
    grep -E "ERROR|oracle|SUMMARY|==[0-9]+==" "$log" | head -20 >&2 || true
    status=1
    continue
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz_$t: ${seconds}s, ${execs:-?} inputs executed, $(ls "$work" | wc -l) in corpus"
done
exit $status
