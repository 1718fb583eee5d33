#!/usr/bin/env bash
# Generates a development CA and a server certificate for gpu-admission (ECDSA P-256).
#
#   certs/gen-dev-certs.sh [OUTDIR]        (default: certs/out next to this script)
#
# Outputs OUTDIR/{ca.crt,ca.key,server.crt,server.key}. The server certificate is valid for
# the in-cluster service names, localhost and 127.0.0.1. For development and tests only: in a
# cluster use cert-manager or your own CA.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-${OUTDIR:-$here/out}}"
days="${DAYS:-365}"
service="${SERVICE:-gpu-admission}"
namespace="${NAMESPACE:-gpu-admission}"

command -v openssl >/dev/null || { echo "gen-dev-certs: openssl not found" >&2; exit 1; }
mkdir -p "$out"
umask 077
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/ca.key"
openssl req -x509 -new -key "$tmp/ca.key" -sha256 -days "$days" \
  -subj "/CN=gpu-admission dev CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out "$tmp/ca.crt" 2>/dev/null

openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/server.key"
openssl req -new -key "$tmp/server.key" -subj "/CN=$service.$namespace.svc" \
  -out "$tmp/server.csr" 2>/dev/null
cat >"$tmp/server.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local,DNS:localhost,IP:127.0.0.1
EXT
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" \
  -set_serial "0x$(openssl rand -hex 16)" -days "$days" -sha256 \
  -extfile "$tmp/server.ext" -out "$tmp/server.crt" 2>/dev/null

# Keys stay private to the user; certificates are public.
chmod 600 "$tmp/ca.key" "$tmp/server.key"
chmod 644 "$tmp/ca.crt" "$tmp/server.crt"
for f in ca.crt ca.key server.crt server.key; do mv -f "$tmp/$f" "$out/$f"; done
echo "gen-dev-certs: wrote $out/{ca.crt,ca.key,server.crt,server.key}" >&2
