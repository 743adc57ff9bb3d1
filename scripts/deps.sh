#!/usr/bin/env bash
# `make deps`: installs what is missing, nothing more. Every check is cheap, so a run with
# everything in place takes about a second. Two profiles (DEPS_PROFILE):
#   run  (`make up`, `make demo`): what the switch itself needs to run on this machine:
#     - Debian packages: mariadb-server + mariadb-client (if mariadbd is missing), Java and
#       Maven for Kafka, curl for health checks, openssl for the local scheme's certificates
#     - node_modules: `npm ci` when missing or older than package-lock.json
#     - Kafka jars (+ slf4j binding) from Maven Central into .cache/kafka/libs
#     - the portal's bundle (portal/dist, esbuild over portal/app) when missing or stale
#   all  (the default: `make deps`, `make test`, `make fuzz`, `make chaos`, perf): the above, and
#   - prometheus and prometheus-mysqld-exporter (Debian): the dashboards and rules test
#   - chromium and fonts-liberation (Debian): the portal's browser tests
#   - redis-server (Debian) and test/sdk-scheme-adapter/node_modules (`npm ci`, same rule):
#     the real Mojaloop DFSP client of test/integration/sdk-scheme-adapter.test.js
#   - k6 and helm via `go install` into .tools/bin
#   - Schemathesis (PyPI, pinned) in a virtualenv at .run/venv, for `make fuzz` (test/fuzz/)
#   - with DEPS_CLUSTER=1 (`make image`, `make cluster-test`): buildah, debootstrap, containerd,
#     runc, the CNI plugins, iptables, ipset, conntrack and busybox-static (Debian)
# The slow steps (npm ci builds librdkafka; go install builds k6 and helm; mvn downloads)
# run as parallel background jobs, each logging to $LOG_DIR/deps-<job>.log; the script
# waits for all of them and fails if any failed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
: "${DEPS_PROFILE:=all}"
[[ "$DEPS_PROFILE" == run || "$DEPS_PROFILE" == all ]] || {
  echo "DEPS_PROFILE must be run or all, not '$DEPS_PROFILE'" >&2
  exit 2
}
source "$REPO_ROOT/scripts/lib.sh"
source "$REPO_ROOT/test/fuzz/fuzz-env.sh"

JOB_NAMES=()
JOB_PIDS=()

# ---- Debian packages -----------------------------------------------------------------------

# Prints the Debian packages to install, one a line: those whose command is missing.
wanted_debian_packages() {
  local -a missing=()
  command -v mariadbd >/dev/null || missing+=(mariadb-server)
  command -v mariadb >/dev/null || missing+=(mariadb-client)
  command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || missing+=(maven)
  command -v curl >/dev/null || missing+=(curl)
  command -v openssl >/dev/null || missing+=(openssl)
  # The tests' own servers (the sdk-scheme-adapter's Redis, the dashboards' Prometheus).
  if [[ "$DEPS_PROFILE" == all ]]; then
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v prometheus >/dev/null || missing+=(prometheus)
    command -v prometheus-mysqld-exporter >/dev/null || missing+=(prometheus-mysqld-exporter)
    # The portal's browser tests drive Debian's Chromium (never a browser downloaded by npm),
    # with a font to lay its text out in.
    command -v chromium >/dev/null || missing+=(chromium)
    [[ -d /usr/share/fonts/truetype/liberation ]] || missing+=(fonts-liberation)
  fi
  # `make image` and `make cluster-test` only (DEPS_CLUSTER=1): the daemonless image build, and
  # the one-node cluster's container runtime, pod network, Service rules and test image.
  if [[ "${DEPS_CLUSTER:-0}" == 1 ]]; then
    command -v buildah >/dev/null || missing+=(buildah)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    command -v containerd >/dev/null || missing+=(containerd)
    command -v runc >/dev/null || missing+=(runc)
    [[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
    command -v iptables >/dev/null || missing+=(iptables)
    command -v ipset >/dev/null || missing+=(ipset)
    command -v conntrack >/dev/null || missing+=(conntrack)
    dpkg-query -W -f '${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || missing+=(busybox-static)
  fi
  ((${#missing[@]} == 0)) || printf '%s\n' "${missing[@]}"
}

# Debian's maintainer scripts would start a system-wide mariadb on port 3306 (and redis on
# 6379) that we do not use; a policy-rc.d answering 101 ("action forbidden") stops that. An
# existing one is kept.
install_debian_packages() {
  local -a packages=("$@")
  local policy=/usr/sbin/policy-rc.d created_policy=0 sudo=()
  ((EUID == 0)) || sudo=(sudo)
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod +x "$policy"
    created_policy=1
  fi
  local status=0
  "${sudo[@]}" apt-get update -q &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
      "${packages[@]}" || status=$?
  ((created_policy == 0)) || "${sudo[@]}" rm -f "$policy"
  return "$status"
}

# ---- node_modules ---------------------------------------------------------------------------

# npm writes node_modules/.package-lock.json on every install: if it is older than
# package-lock.json, the lock file changed since node_modules was made. $1: the project dir.
npm_needed() {
  [[ -f "$1/package.json" ]] || return 1
  [[ ! -f "$1/node_modules/.package-lock.json" ]] && return 0
  [[ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]]
}

# Installs the npm project in $1, then checks that $2 (relative to it) exists: what an
# install script must have built, or the package the project is for.
install_npm_project() {
  cd "$1"
  if [[ -f package-lock.json ]]; then
    npm ci --no-audit --no-fund
  else
    # No lock file yet: `npm ci` cannot work; `npm install` creates one (commit it).
    echo "$1/package-lock.json is missing: running npm install to create it"
    npm install --no-audit --no-fund
  fi
  [[ -e "$2" ]] || { echo "$1: $2 is missing after the install (install scripts blocked?)"; return 1; }
}

# The sdk-scheme-adapter test's own npm project: @mojaloop/sdk-scheme-adapter@18.0.2 pins a
# node 16-era tree (EBADENGINE warnings only), so it stays out of the switch's node_modules.
SDK_ADAPTER_DIR="$REPO_ROOT/test/sdk-scheme-adapter"

# ---- the portal's bundle --------------------------------------------------------------------

# The portal serves portal/dist, built from portal/app by esbuild (portal/build.mjs): stale when
# missing, or older than any source file or the installed packages.
portal_bundle_stale() {
  local built="$REPO_ROOT/portal/dist/index.html"
  [[ -f "$built" ]] || return 0
  [[ "$REPO_ROOT/node_modules/.package-lock.json" -nt "$built" || "$REPO_ROOT/portal/build.mjs" -nt "$built" ]] && return 0
  [[ -n "$(find "$REPO_ROOT/portal/app" -newer "$built" -print -quit)" ]]
}

# ---- Kafka jars -----------------------------------------------------------------------------

kafka_libs_present() {
  [[ -f "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]] &&
    compgen -G "$KAFKA_LIBS/slf4j-reload4j-*.jar" >/dev/null
}

# Fetches into a temporary folder and renames it into place, so an interrupted download
# never leaves a half-filled libs folder that would look complete.
fetch_kafka_libs() {
  local tmp="$KAFKA_LIBS.tmp.$$"
  rm -rf "$tmp"
  mvn -q -B -f "$REPO_ROOT/scripts/kafka/pom.xml" dependency:copy-dependencies \
    -Dkafka.version="$KAFKA_VERSION" -DincludeScope=runtime -DoutputDirectory="$tmp"
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  echo "$(find "$KAFKA_LIBS" -name '*.jar' | wc -l) jars in $KAFKA_LIBS"
}

# ---- Schemathesis (the fuzzer of test/fuzz/) ------------------------------------------------

# True if the virtualenv holds exactly the pinned version (pip writes a dist-info folder per
# installed version, so a glob is a check that takes no Python start-up).
schemathesis_current() {
  [[ -x "$FUZZ_VENV/bin/st" ]] && compgen -G "$FUZZ_VENV/lib/python3*/site-packages/schemathesis-$SCHEMATHESIS_VERSION.dist-info" >/dev/null
}

install_schemathesis() {
  python3 -m venv "$FUZZ_VENV"
  "$FUZZ_VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  "$FUZZ_VENV/bin/st" --version
}

# ---- Go tools -------------------------------------------------------------------------------

# True if BINARY exists and was built from MODULE at VERSION (read from the binary's
# embedded build info, so a version change in env.sh triggers a rebuild).
go_tool_current() {
  local binary="$1" module="$2" version="$3"
  [[ -x "$binary" ]] || return 1
  go version -m "$binary" 2>/dev/null | awk -v m="$module" -v v="$version" \
    '$1 == "mod" && $2 == m && $3 == v { found = 1 } END { exit !found }'
}

go_install() {
  local package="$1"
  mkdir -p "$TOOLS_BIN"
  GOBIN="$TOOLS_BIN" go install "$package"
}

# ---- background jobs ------------------------------------------------------------------------

# Runs "$@" in the background with its output in $LOG_DIR/deps-NAME.log.
start_job() {
  local name="$1"
  shift
  log "$name: installing (log: $LOG_DIR/deps-$name.log)"
  (
    start=$SECONDS
    "$@"
    echo "done in $((SECONDS - start))s"
  ) >"$LOG_DIR/deps-$name.log" 2>&1 &
  JOB_NAMES+=("$name")
  JOB_PIDS+=("$!")
}

wait_jobs() {
  local i failed=0
  for i in "${!JOB_PIDS[@]}"; do
    if wait "${JOB_PIDS[$i]}"; then
      log "${JOB_NAMES[$i]}: $(tail -n 1 "$LOG_DIR/deps-${JOB_NAMES[$i]}.log")"
    else
      show_log_tail "$LOG_DIR/deps-${JOB_NAMES[$i]}.log" 30
      warn "${JOB_NAMES[$i]}: FAILED"
      failed=1
    fi
  done
  return "$failed"
}

# ---- main -----------------------------------------------------------------------------------

check_toolchains() {
  command -v node >/dev/null || die "node (>= 20) is required and not installed"
  command -v npm >/dev/null || die "npm is required and not installed"
  [[ "$DEPS_PROFILE" == run ]] || command -v go >/dev/null || die "go is required (for k6 and helm) and not installed"
}

# The slow installs only the tests need (k6, helm, the kube-apiserver, the sdk-scheme-adapter's
# npm project, Schemathesis): started as background jobs, none needed to run the switch.
start_test_tool_jobs() {
  if ! go_tool_current "$TOOLS_BIN/k6" go.k6.io/k6 "$K6_VERSION"; then
    start_job k6 go_install "go.k6.io/k6@$K6_VERSION"
  fi
  if ! go_tool_current "$TOOLS_BIN/helm" helm.sh/helm/v3 "$HELM_VERSION"; then
    start_job helm go_install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  fi
  # A real kube-apiserver + etcd and the monitoring/KEDA CRDs, for test/charts (the chart is
  # installed, upgraded and rolled back against them). The longest build: it runs alongside.
  if [[ ! -x "$TOOLS_BIN/kube-apiserver" || ! -x "$TOOLS_BIN/etcd" || ! -f "$TOOLS_BIN/../crds/keda.sh_scaledobjects.yaml" ]]; then
    start_job k8s-apiserver env K8S_TOOLS_BIN="$TOOLS_BIN" bash "$REPO_ROOT/test/cluster/k8s-apiserver.sh" build
  fi
  if npm_needed "$SDK_ADAPTER_DIR"; then
    start_job npm-sdk-scheme-adapter install_npm_project "$SDK_ADAPTER_DIR" node_modules/@mojaloop/sdk-scheme-adapter/src/index.js
  fi
  if ! schemathesis_current; then
    command -v python3 >/dev/null || die "python3 (>= 3.9, with venv) is required for Schemathesis"
    start_job schemathesis install_schemathesis
  fi
}

main() {
  local -a packages
  local started=$SECONDS
  mkdir -p "$LOG_DIR"
  check_toolchains
  mapfile -t packages < <(wanted_debian_packages)

  # npm ci (which compiles librdkafka, the longest step the switch needs) and the Go builds do
  # not depend on the Debian packages: start them first.
  # node-rdkafka's native addon is built by an install script; the check makes sure it was.
  if npm_needed "$REPO_ROOT"; then
    start_job npm install_npm_project "$REPO_ROOT" node_modules/node-rdkafka/build/Release
  fi
  # The jar fetch needs Maven, which may itself come from apt: it starts now if Maven is here.
  local kafka_jars_started=0
  if ! kafka_libs_present && command -v mvn >/dev/null; then
    start_job kafka-jars fetch_kafka_libs
    kafka_jars_started=1
  fi
  [[ "$DEPS_PROFILE" == run ]] || start_test_tool_jobs
  if ((${#packages[@]} > 0)); then
    log "apt: installing ${packages[*]}"
    install_debian_packages "${packages[@]}" >"$LOG_DIR/deps-apt.log" 2>&1 ||
      { show_log_tail "$LOG_DIR/deps-apt.log" 30; wait_jobs || true; die "apt-get install failed"; }
    log "apt: done at $((SECONDS - started))s"
  fi
  if ! kafka_libs_present && ((kafka_jars_started == 0)); then
    start_job kafka-jars fetch_kafka_libs
  fi

  if ((${#JOB_PIDS[@]} == 0)); then
    log "everything already installed ($DEPS_PROFILE)"
  else
    wait_jobs || die "some dependencies failed to install (see the logs above)"
    log "dependencies installed ($DEPS_PROFILE) in $((SECONDS - started))s"
  fi
  if portal_bundle_stale; then
    (cd "$REPO_ROOT" && node portal/build.mjs) >"$LOG_DIR/deps-portal.log" 2>&1 ||
      { show_log_tail "$LOG_DIR/deps-portal.log" 30; die "the portal's bundle failed to build"; }
    log "portal: bundled into portal/dist"
  fi
}

main "$@"
