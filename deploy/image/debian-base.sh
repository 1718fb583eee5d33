#!/usr/bin/env bash
# The Dockerfile's base images made here, from the Debian archive, with no registry:
# localhost/debian:12 and localhost/debian:12-slim in the private podman storage of
# deploy/image/podman, so `podman build --pull=never` resolves the Dockerfile's FROM lines.
#
#   deploy/image/debian-base.sh          # prints the cache directory of the base it imported
#
# They are made the way Docker Hub's debian images are (debuerreotype, examples/debian.sh): a
# `debootstrap --variant=minbase` of bookworm, every package marked automatically installed, the
# archive, its -updates and the security archive as sources, debuerreotype's apt and dpkg
# settings for containers, a dist-upgrade, the apt lists and caches and the logs that carry
# build-time data removed; the slim variant then drops documentation, man pages and translations
# (all but the copyright files and a few locale tables) and keeps them out with a dpkg path
# exclude, as debuerreotype-slimify does. Same package set, same settings: the size the image
# test measures is the size the image has on a registry's debian:12-slim.
#
# The root filesystems are cached as tar files in GPUA_IMAGE_CACHE/base/KEY (default
# ~/.cache/gpu-admission/image), KEY being a hash of this script, the architecture, the mirror
# and the month: Docker Hub rebuilds its Debian images about monthly, so the base here takes
# Debian's updates about as often, and a second run in the same month is warm (no debootstrap).
# GPUA_IMAGE_BASE_REBUILD=1 rebuilds it now. Needs root (sudo when not root): debootstrap and
# chroot.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${GPUA_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-admission/image}"
mirror="${GPUA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${GPUA_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
suite=bookworm
podman="$here/podman"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
die() { echo "debian-base: $*" >&2; exit 1; }
log() { echo "debian-base: $*" >&2; }

arch="$(dpkg --print-architecture)"
key="$( { cat "${BASH_SOURCE[0]}"; echo "$arch $mirror $security $(date -u +%Y-%m)"; } | sha256sum | cut -c1-16)"
dir="$cache/base/$key"

# Runs a command inside the root filesystem with /proc and /dev mounted in a private mount
# namespace (the mounts vanish with it, whatever happens) and the host's resolver.
in_root() {
  local root="$1"; shift
  $sudo unshare --mount --propagation private -- sh -c '
    root="$1"; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
    exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
  ' in_root "$root" "$@"
}

# debuerreotype-minimizing-config: the apt and dpkg settings of every Debian image on Docker Hub.
minimizing_config() {
  local r="$1"
  cat > "$r/usr/sbin/policy-rc.d" <<'CONF'
#!/bin/sh

# For most Docker users, "apt-get install" only happens during "docker build",
# where starting services doesn't work and often fails in humorous ways. This
# prevents those failures by stopping the services from attempting to start.

exit 101
CONF
  chmod 0755 "$r/usr/sbin/policy-rc.d"
  cat > "$r/etc/dpkg/dpkg.cfg.d/docker-apt-speedup" <<'CONF'
# For most Docker users, package installs happen during "docker build", which
# doesn't survive power loss and gets restarted clean afterwards anyhow, so
# this minor tweak gives us a nice speedup (much nicer on spinning disks,
# obviously).

force-unsafe-io
CONF
  cat > "$r/etc/apt/apt.conf.d/docker-autoremove-suggests" <<'CONF'
// Since Docker users are looking for the smallest possible final images, the
// following emerges as a very common pattern:

//   RUN apt-get update \
//       && apt-get install -y <packages> \
//       && <do some compilation work> \
//       && apt-get purge -y --auto-remove <packages>

// By default, APT will actually _keep_ packages installed via Recommends or
// Depends if another package Suggests them, even and including if the package
// that originally caused them to be installed is removed.  Setting this to
// "false" ensures that APT is appropriately aggressive about removing the
// packages it added.

// https://aptitude.alioth.debian.org/doc/en/ch02s05s05.html#configApt-AutoRemove-SuggestsImportant
Apt::AutoRemove::SuggestsImportant "false";
CONF
  local clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true";'
  cat > "$r/etc/apt/apt.conf.d/docker-clean" <<CONF
// Since for most Docker users, package installs happen in "docker build" steps,
// they essentially become individual layers due to the way Docker handles
// layering, especially using CoW filesystems.  What this means for us is that
// the caches that APT keeps end up just wasting space in those layers, making
// our layers unnecessarily large (especially since we'll normally never use
// these caches again and will instead just "docker build" again and make a brand
// new image).

// Ideally, these would just be invoking "apt-get clean", but in our testing,
// that ended up being cyclic and we got stuck on APT's lock, so we get this fun
// creation that's essentially just "apt-get clean".
DPkg::Post-Invoke { $clean };
APT::Update::Post-Invoke { $clean };

Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";

// Note that we do realize this isn't the ideal way to do this, and are always
// open to better suggestions (https://github.com/debuerreotype/debuerreotype/issues).
CONF
  cat > "$r/etc/apt/apt.conf.d/docker-gzip-indexes" <<'CONF'
// Since Docker users using "RUN apt-get update && apt-get install -y ..." in
// their Dockerfiles don't go delete the lists files afterwards, we want them to
// be as small as possible on-disk, so we explicitly request that Apt keep them
// compressed on-disk too instead of decompressing them.

// For comparison, an "apt-get update" layer without this on a pristine
// "debian:wheezy" base image was "29.88 MB", where with this it was only
// "8.273 MB".

Acquire::GzipIndexes "true";
CONF
  cat > "$r/etc/apt/apt.conf.d/docker-no-languages" <<'CONF'
// In Docker, we don't often need the "Translations" files, so we're just wasting
// time and space by downloading them, and this inhibits that.  For users that do
// need them, it's a simple matter to delete this file and "apt-get update". :)

Acquire::Languages "none";
CONF
  chmod 0644 "$r"/etc/dpkg/dpkg.cfg.d/docker-apt-speedup "$r"/etc/apt/apt.conf.d/docker-*
}

# debuerreotype-slimify: what debian:12-slim leaves out, now and in every later apt-get install.
slim_excludes=(/usr/share/doc/'*' /usr/share/groff/'*' /usr/share/info/'*' /usr/share/linda/'*'
  /usr/share/lintian/overrides/'*' /usr/share/locale/'*' /usr/share/man/'*')
slim_includes=(/usr/share/doc/'*'/copyright /usr/share/doc/kde/HTML/C/'*' /usr/share/gnome/help/'*'/C/'*'
  /usr/share/locale/all_languages /usr/share/locale/currency/'*' /usr/share/locale/l10n/'*'
  /usr/share/locale/languages /usr/share/locale/locale.alias /usr/share/omf/'*'/'*'-C.emf)
slimify() {
  local r="$1" cfg="$1/etc/dpkg/dpkg.cfg.d/docker" p
  {
    echo '# This is the "slim" variant of the Debian base image.'
    echo '# Many files which are normally unnecessary in containers are excluded,'
    echo '# and this configuration file keeps them that way.'
    echo
    for p in "${slim_excludes[@]}"; do echo "path-exclude $p"; done
    echo
    for p in "${slim_includes[@]}"; do echo "path-include $p"; done
  } > "$cfg"
  chmod 0644 "$cfg"
  # dpkg's own filter, in find: delete every file under an excluded directory that no include
  # matches, then the dangling symlinks and empty directories that leaves, until none is left.
  local match=() first=1
  for p in "${slim_includes[@]}"; do
    [ $first -eq 1 ] || match+=(-o); first=0
    match+=(-path "$r$p")
  done
  for p in "${slim_excludes[@]}"; do
    local d="$r${p%/\*}"
    [ -d "$d" ] || continue
    find "$d" -depth -mindepth 1 -not \( "${match[@]}" \) -not \( -type d -o -type l \) -delete
    while [ -n "$(find "$d" -depth -mindepth 1 \( -empty -o -xtype l \) -print -quit)" ]; do
      find "$d" -depth -mindepth 1 \( -empty -o -xtype l \) -exec rm -rf {} +
    done
  done
}

# The files debuerreotype-fixup deletes and debuerreotype-tar leaves out: build-time logs, apt's
# downloaded lists and caches, lock files. /dev's nodes come from the runtime.
tar_rootfs() {
  local r="$1" out="$2"
  rm -f "$r"/var/log/dpkg.log "$r"/var/log/bootstrap.log "$r"/var/log/alternatives.log \
    "$r"/var/cache/ldconfig/aux-cache "$r"/run/mount/utab \
    "$r"/var/log/apt/history.log "$r"/var/log/apt/term.log "$r"/var/lib/systemd/catalog/database \
    "$r"/etc/apt/apt.conf.d/01autoremove-kernels
  rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin "$r"/var/cache/apt/archives/*.deb
  mkdir -p "$r/var/lib/apt/lists/partial" "$r/var/cache/apt/archives/partial"
  rmdir "$r/run/mount" 2>/dev/null || true
  tar --create --file "$out.part" --directory "$r" --numeric-owner --xattrs --sort=name \
    --exclude=./proc/'*' --exclude=./sys/'*' --exclude=./dev/'*' .
  mv "$out.part" "$out"
}

build_base() {
  command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
  $sudo mkdir -p "$cache/base"
  local tmp
  tmp="$($sudo mktemp -d "$cache/base/.build.XXXXXX")"
  # Cleaned on exit, whether the build worked or not; a mount left by a failed chroot command
  # cannot outlive its mount namespace, so rm never descends into the host's /proc or /dev.
  trap "$sudo rm -rf '$tmp'" EXIT
  local r="$tmp/rootfs"
  log "debootstrap --variant=minbase $suite from $mirror (a minute or two, once a month)"
  if ! $sudo debootstrap --variant=minbase --merged-usr --force-check-gpg "$suite" "$r" "$mirror" \
      > "$tmp/debootstrap.out" 2>&1; then
    cat "$tmp/debootstrap.out" >&2
    [ -f "$r/debootstrap/debootstrap.log" ] && tail -n 30 "$r/debootstrap/debootstrap.log" >&2
    die "debootstrap of $suite from $mirror failed (output above)"
  fi
  # The rest runs as root (the tree is root's); one shell with this file's functions in it.
  $sudo env r="$r" tmp="$tmp" suite="$suite" mirror="$mirror" security="$security" \
    bash -euo pipefail -c "
    $(declare -f minimizing_config slimify tar_rootfs in_root log die)
    $(declare -p slim_excludes slim_includes)
    sudo=''
    # debuerreotype-debian-sources-list: deb822 sources for bookworm and later.
    rm -f \"\$r/etc/apt/sources.list\"
    cat > \"\$r/etc/apt/sources.list.d/debian.sources\" <<SOURCES
Types: deb
URIs: \$mirror
Suites: \$suite \$suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: \$security
Suites: \$suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    cp /etc/resolv.conf \"\$r/etc/resolv.conf\"
    # minbase holds only what is essential or needed by it: all of it automatically installed,
    # so apt-mark showmanual is empty and autoremove judges only what a Dockerfile adds.
    in_root \"\$r\" apt-mark auto '.*' >/dev/null
    minimizing_config \"\$r\"
    log 'apt-get update and dist-upgrade (bookworm-updates, bookworm-security)'
    in_root \"\$r\" apt-get update -qq > \"\$tmp/apt.out\" 2>&1 &&
      in_root \"\$r\" apt-get dist-upgrade -yqq >> \"\$tmp/apt.out\" 2>&1 ||
      { cat \"\$tmp/apt.out\" >&2; die 'apt-get update or dist-upgrade in the new root failed (output above)'; }
    # What debuerreotype-init writes; a container runtime replaces all three at run time.
    echo debuerreotype > \"\$r/etc/hostname\"
    date -u +%s | md5sum | cut -d' ' -f1 > \"\$r/etc/machine-id\"
    printf '%s\n' '# https://1.1.1.1 (privacy-focused, highly-available DNS service)' \
      'nameserver 1.1.1.1' 'nameserver 1.0.0.1' > \"\$r/etc/resolv.conf\"
    chmod 0644 \"\$r/etc/hostname\" \"\$r/etc/machine-id\" \"\$r/etc/resolv.conf\"
    chown 0:0 \"\$r\"; chmod 0755 \"\$r\"
    in_root \"\$r\" dpkg-query -W > \"\$tmp/debian-12.manifest\"
    tar_rootfs \"\$r\" \"\$tmp/debian-12.tar\"
    log 'slim variant'
    slimify \"\$r\"
    in_root \"\$r\" dpkg-query -W > \"\$tmp/debian-12-slim.manifest\"
    tar_rootfs \"\$r\" \"\$tmp/debian-12-slim.tar\"
    rm -rf \"\$r\"
    date -u +%Y-%m-%dT%H:%M:%SZ > \"\$tmp/built\"
  "
  $sudo rm -rf "$dir"
  $sudo mv "$tmp" "$dir"
  trap - EXIT
  # Older months' bases are of no further use.
  local old
  for old in "$cache"/base/*/; do
    [ "${old%/}" = "$dir" ] || $sudo rm -rf "${old%/}"
  done
}

if [ "${GPUA_IMAGE_BASE_REBUILD:-0}" = 1 ] || [ ! -f "$dir/built" ]; then
  build_base
fi

# Import each variant unless the image of that name is the one imported from this base.
for variant in 12 12-slim; do
  ref="localhost/debian:$variant"
  mark="$dir/debian-$variant.imported"
  id="$("$podman" image inspect --format '{{.Id}}' "$ref" 2>/dev/null || true)"
  if [ -n "$id" ] && [ -f "$mark" ] && [ "$(cat "$mark")" = "$id" ]; then continue; fi
  log "importing $ref from $dir/debian-$variant.tar"
  # The config of Docker Hub's debian images: PATH and a bash CMD, nothing else.
  "$podman" import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' "$dir/debian-$variant.tar" "$ref" >/dev/null ||
    die "podman import of $dir/debian-$variant.tar as $ref failed"
  # (An import of the same tar can give the same ID: compare IDs as inspect prints them.)
  new="$("$podman" image inspect --format '{{.Id}}' "$ref")"
  echo "$new" | $sudo tee "$mark" >/dev/null
  # The image it replaces, unless a build still uses it as a parent.
  if [ -n "$id" ] && [ "$id" != "$new" ]; then "$podman" rmi "$id" >/dev/null 2>&1 || true; fi
done
echo "$dir"
