#!/usr/bin/env bash
# make live-test: the live suites (testcluster/live) against a real control plane that the Go test
# binary brings up (up.sh) and always takes down again (down.sh), even when a test fails or the run
# is interrupted. Installs what it needs when missing (Debian: haproxy, openssl, curl, python3);
# Go is required and not installed here: a missing Go is an error that says so.
#
#   testcluster/run-live-tests.sh [go test flags]     e.g. -run 'TestLive/Faults'
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v go >/dev/null || {
  echo "live-test: Go is not installed; install Go >= 1.26 (https://go.dev/doc/install, or Debian's golang-1.26)" >&2
  exit 1
}
missing=()
for tool in haproxy openssl curl python3; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "live-test: installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
bash "$here/build.sh" >/dev/null
cd "$here"
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-mod=mod -trimpath"
# -json through the digest: the same -v output, then each failed test's own lines at the end,
# where CI's tail shows them.
go test -count=1 -json -timeout 40m "$@" ./live/ | python3 "$here/failure_digest.py"
