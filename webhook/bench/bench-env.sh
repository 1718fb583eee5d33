# Sourced by the bench scripts (run-all.sh, flood.sh, profile-callgrind.sh): the repository root
# as the working directory, the build whose binaries are measured, the shared knobs, and CPU
# pinning. Environment: BUILD_DIR (build/perf), SECONDS_PER_RUN (5), SERVER_CPU (1),
# CLIENT_CPU (0), CONNS (16).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${BUILD_DIR:-build/perf}"
secs="${SECONDS_PER_RUN:-5}"
server_cpu="${SERVER_CPU:-1}"
client_cpu="${CLIENT_CPU:-0}"
conns="${CONNS:-16}"
bin="$build/bin"
out="$build/bench-results"
mkdir -p "$out"

can_pin() { command -v taskset >/dev/null && taskset -c "$1" true 2>/dev/null; }
pin() {  # pin CPU command... : taskset when the CPU exists, else run unpinned
  local cpu="$1"
  shift
  if can_pin "$cpu"; then taskset -c "$cpu" "$@"; else "$@"; fi
}

# Dev certificates for the servers ($certs), a scratch directory with a copy of policies/
# ($work), and an exit trap that stops every pid added to `pids` and removes the directory.
setup_work() {
  certs="$build/bench-certs"
  [ -f "$certs/server.crt" ] || bash certs/gen-dev-certs.sh "$certs" >/dev/null
  work="$(mktemp -d)"
  pids=()
  trap cleanup_work EXIT
  cp -r policies "$work/policies"
}
cleanup_work() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
