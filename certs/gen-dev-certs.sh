#!/usr/bin/env bash
# Generates a CA and a server certificate for gpu-admission (ECDSA P-256), or renews the server
# certificate with the CA it made before.
#
#   certs/gen-dev-certs.sh [--new-ca] [OUTDIR]      (default OUTDIR: certs/out next to this script)
#
# Outputs OUTDIR/{ca.crt,ca.key,server.crt,server.key}. The server certificate is valid for
# the in-cluster service names (SERVICE.NAMESPACE.svc), localhost and 127.0.0.1.
#
# Renewal without an outage: when OUTDIR already holds ca.crt and ca.key, the CA is kept and only
# a new server certificate is issued, so the caBundle the apiserver trusts does not change and
# the replicas may keep serving the old certificate until the kubelet updates their Secret.
# --new-ca replaces the CA (its key leaked, or it expires): ca.crt then holds the new CA and,
# after it, the previous one, so an apiserver given the new caBundle still trusts the certificate
# the replicas serve until they load the new one. The next renewal (without --new-ca) writes
# ca.crt with the current CA alone.
#
# For development, tests and the self-signed overlay: prefer cert-manager in a cluster.
set -euo pipefail

usage() { echo "usage: gen-dev-certs.sh [--new-ca] [OUTDIR]" >&2; exit 2; }
new_ca=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --new-ca) new_ca=1 ;;
    -h|--help) usage ;;
    -*) echo "gen-dev-certs: unknown option $1" >&2; usage ;;
    *) [ -z "$out" ] || { echo "gen-dev-certs: one OUTDIR only (got $out and $1)" >&2; usage; }; out="$1" ;;
  esac
  shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${out:-${OUTDIR:-$here/out}}"
days="${DAYS:-365}"
ca_days="${CA_DAYS:-3650}"
service="${SERVICE:-gpu-admission}"
namespace="${NAMESPACE:-gpu-admission}"
die() { echo "gen-dev-certs: $*" >&2; exit 1; }

command -v openssl >/dev/null || die "openssl not found"
[[ "$days" =~ ^[1-9][0-9]*$ ]] || die "DAYS must be a positive number of days, not '$days'"
[[ "$ca_days" =~ ^[1-9][0-9]*$ ]] || die "CA_DAYS must be a positive number of days, not '$ca_days'"
# The DNS SAN the apiserver verifies: both parts must be DNS labels.
label='^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'
[[ "$service" =~ $label ]] || die "SERVICE '$service' is not a DNS label"
[[ "$namespace" =~ $label ]] || die "NAMESPACE '$namespace' is not a DNS label"

mkdir -p "$out"
umask 077
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The first certificate of a PEM bundle.
first_cert() { openssl x509 -in "$1" 2>/dev/null; }
pubkey_of_cert() { first_cert "$1" | openssl x509 -noout -pubkey 2>/dev/null; }
pubkey_of_key() { openssl pkey -in "$1" -pubout 2>/dev/null; }

new_ca_pair() {
  openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/ca.key"
  openssl req -x509 -new -key "$tmp/ca.key" -sha256 -days "$ca_days" \
    -subj "/CN=gpu-admission CA $(date -u +%Y%m%dT%H%M%SZ)" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$tmp/ca.crt" 2>/dev/null
}

have_ca=0
if [ -e "$out/ca.crt" ] || [ -e "$out/ca.key" ]; then
  [ -f "$out/ca.crt" ] || die "$out has ca.key but no ca.crt: restore ca.crt, or run with --new-ca"
  [ -f "$out/ca.key" ] || die "$out has ca.crt but no ca.key: the CA cannot sign a renewal; restore ca.key, or run with --new-ca (stages the new CA beside this one)"
  first_cert "$out/ca.crt" >/dev/null || die "$out/ca.crt holds no PEM certificate"
  have_ca=1
fi

if [ "$have_ca" = 1 ] && [ "$new_ca" = 0 ]; then
  # Renewal: the same CA signs a new server certificate; ca.crt becomes the current CA alone
  # (the CA a previous --new-ca staged beside it is no longer served by anyone).
  [ "$(pubkey_of_cert "$out/ca.crt")" = "$(pubkey_of_key "$out/ca.key")" ] ||
    die "$out/ca.key is not the key of the first certificate in $out/ca.crt; run with --new-ca"
  first_cert "$out/ca.crt" >"$tmp/ca.crt"
  cp "$out/ca.key" "$tmp/ca.key"
  # A certificate must not outlive its CA: the apiserver would refuse it once the CA expires.
  openssl x509 -in "$tmp/ca.crt" -noout -checkend $(( days * 86400 )) >/dev/null ||
    die "the CA in $out/ca.crt expires in less than DAYS=$days days ($(openssl x509 -in "$tmp/ca.crt" -noout -enddate)): run with --new-ca, or a smaller DAYS"
  action="renewed the server certificate with the CA already in $out"
elif [ "$have_ca" = 1 ]; then
  # New CA, staged: the new CA first (it signs), the previous one after it, while it is valid.
  new_ca_pair
  if first_cert "$out/ca.crt" >"$tmp/old.crt" && openssl x509 -in "$tmp/old.crt" -noout -checkend 0 >/dev/null; then
    cat "$tmp/old.crt" >>"$tmp/ca.crt"
    action="made a new CA; ca.crt holds it and the previous one (apply the new caBundle before, or with, the new certificate)"
  else
    action="made a new CA (the previous one has expired and is not kept)"
  fi
else
  new_ca_pair
  action="made a new CA"
fi

openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/server.key"
openssl req -new -key "$tmp/server.key" -subj "/CN=$service.$namespace.svc" \
  -out "$tmp/server.csr" 2>/dev/null
cat >"$tmp/server.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local,DNS:localhost,IP:127.0.0.1
EXT
first_cert "$tmp/ca.crt" >"$tmp/signer.crt"
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/signer.crt" -CAkey "$tmp/ca.key" \
  -set_serial "0x$(openssl rand -hex 16)" -days "$days" -sha256 \
  -extfile "$tmp/server.ext" -out "$tmp/server.crt" 2>/dev/null

# Keys stay private to the user; certificates are public.
chmod 600 "$tmp/ca.key" "$tmp/server.key"
chmod 644 "$tmp/ca.crt" "$tmp/server.crt"
# The CA first: a renewal interrupted between the moves leaves a server certificate that the
# (unchanged or staged) ca.crt still verifies.
for f in ca.crt ca.key server.crt server.key; do mv -f "$tmp/$f" "$out/$f"; done
echo "gen-dev-certs: $action; wrote $out/{ca.crt,ca.key,server.crt,server.key} for $service.$namespace.svc" >&2
