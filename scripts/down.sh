#!/usr/bin/env bash
# `make down`: stops exactly the processes `make up` started, by PID, each checked to still
# be ours: service replicas first (they use the others), then Kafka, then MariaDB.
# Data in $RUN_DIR survives; `make up` continues where it stopped.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

bash "$REPO_ROOT/scripts/services.sh" stop
bash "$REPO_ROOT/scripts/kafka.sh" stop
bash "$REPO_ROOT/scripts/mariadb.sh" stop
log "stopped"
