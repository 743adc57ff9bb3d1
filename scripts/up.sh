#!/usr/bin/env bash
# `make up`: the whole switch on this machine: infrastructure, then every service replica
# in scripts/services.conf (PROFILE=compact: the hosts of scripts/services-compact.conf, several
# components per process). Idempotent: whatever already runs is left running.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

bash "$REPO_ROOT/scripts/infra-up.sh"
node "$REPO_ROOT/tools/hub-keys.js" || die "the hub's JWS key pair could not be made"
node "$REPO_ROOT/scripts/scheme-ca.js" || die "the local scheme's CA and certificates could not be made"
bash "$REPO_ROOT/scripts/services.sh" start
echo
echo "Logs: $LOG_DIR   PID files: $PID_DIR (MariaDB and Kafka: $RUN_DIR/mariadb, $RUN_DIR/kafka)"
bash "$REPO_ROOT/scripts/status.sh"
