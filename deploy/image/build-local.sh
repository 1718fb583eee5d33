#!/usr/bin/env bash
# Builds the container image here, with no registry, from a binary already built, and writes it
# as an OCI archive a release step can push:
#
#   deploy/image/build-local.sh [BINARY]    (default: build/release/bin/gpu-admission, `make build`)
#
# 1. localhost/debian:12 and localhost/debian:12-slim from the Debian archive
#    (deploy/image/debian-base.sh: debootstrap, cached outside the tree);
# 2. `podman build --pull=never --network=host --target prebuilt` of the repository's
#    Dockerfile, in a context of just the stripped BINARY and policies/: the runtime stage the
#    registries' image is made of, plus BINARY; the build stage is skipped (the product is
#    compiled once, by `make build`);
# 3. the image, tagged localhost/gpu-admission:VERSION, saved to
#    GPUA_IMAGE_OUT/gpu-admission.oci.tar (default build/image/).
#
# Installs podman, runc, debootstrap and binutils when missing. Prints the image reference last. podman runs with the private configuration and storage of
# deploy/image/podman (the layer cache makes a second build seconds long). Pushing the archive:
# docs/install.md#building-the-image-without-a-registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
podman="$here/podman"
bin="${1:-${GPUA_BINARY:-$root/build/release/bin/gpu-admission}}"
out="${GPUA_IMAGE_OUT:-$root/build/image}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
die() { echo "build-local: $*" >&2; exit 1; }
log() { echo "build-local: $*" >&2; }

[ -x "$bin" ] || die "no binary at $bin (make build makes build/release/bin/gpu-admission)"

# What it needs, installed when missing. runc named explicitly: podman's dependency is met by
# crun alone, and deploy/image/podman says why runc.
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v strip >/dev/null || missing+=(binutils)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# "gpu-admission 0.5.0 (revision 3fd31b0dcc20)"
version="$("$bin" version | awk '{print $2}')"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "$bin version printed '$("$bin" version)', not a version"
ref="localhost/gpu-admission:$version"

# One build or test at a time on a machine: two checkouts share the storage and the tag (the
# image test holds this lock from the build to the container's removal).
if [ -z "${GPUA_IMAGE_LOCK_HELD:-}" ]; then
  exec 9>>"${TMPDIR:-/tmp}/gpu-admission-image.lock"
  flock 9
fi

bash "$here/debian-base.sh" >/dev/null

# The context: what the prebuilt target copies and nothing else (no .dockerignore needed).
ctx="$out/context"
rm -rf "$ctx"
mkdir -p "$ctx/policies"
strip --strip-all -o "$ctx/gpu-admission" "$bin"
cp "$root"/policies/*.yaml "$ctx/policies/"

previous="$("$podman" image inspect --format '{{.Id}}' "$ref" 2>/dev/null || true)"
log "podman build $ref from $bin"
if ! "$podman" build --pull=never --network=host --target prebuilt --force-rm \
    --file "$root/Dockerfile" --tag "$ref" "$ctx" > "$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  die "podman build failed (the last lines above; all of it in $out/build.log)"
fi
id="$("$podman" image inspect --format '{{.Id}}' "$ref")"
# The image this one replaces; its layers shared with the new one stay.
if [ -n "$previous" ] && [ "$previous" != "$id" ]; then "$podman" rmi "$previous" >/dev/null 2>&1 || true; fi

archive="$out/gpu-admission.oci.tar"
rm -f "$archive.part"
"$podman" save --quiet --format oci-archive --output "$archive.part" "$ref" ||
  die "podman save of $ref to $archive.part failed"
$sudo chown "$(id -u):$(id -g)" "$archive.part"
mv "$archive.part" "$archive"
log "$ref ($(numfmt --to=si --suffix=B "$("$podman" image inspect --format '{{.Size}}' "$ref")")) saved to $archive"
echo "$ref"
