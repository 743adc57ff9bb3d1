#!/usr/bin/env bash
# `make clean`: `make down`, then delete $RUN_DIR (databases, Kafka data, logs). Downloaded
# dependencies (.cache, .tools, node_modules) are kept.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

bash "$REPO_ROOT/scripts/down.sh"
# Refuse to delete anything that is not a directory inside the repository.
case "$RUN_DIR" in
  "$REPO_ROOT"/?*) ;;
  *) die "RUN_DIR=$RUN_DIR is outside $REPO_ROOT; delete it by hand if you mean it" ;;
esac
rm -rf -- "$RUN_DIR"
log "removed $RUN_DIR"
