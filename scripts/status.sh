#!/usr/bin/env bash
# Prints a table of every process the local runtime manages: MariaDB, Kafka and the
# service replicas, with PID, port, state, restarts by their supervisor and log file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

row() { printf '%-22s %-7s %-8s %-6s %-10s %-8s %s\n' "$@"; }

infra_row() {
  local name="$1" pid="$2" port="$3" logfile="$4"
  if [[ -n "$pid" ]]; then row "$name" - "$pid" "$port" running - "$logfile"
  else row "$name" - - "$port" stopped - "$logfile"; fi
}

row NAME REPLICA PID PORT STATE RESTARTS LOG
infra_row mariadb "$(bash "$REPO_ROOT/scripts/mariadb.sh" pid)" "$DB_PORT" "$LOG_DIR/mariadb.log"
infra_row kafka "$(bash "$REPO_ROOT/scripts/kafka.sh" pid)" "$KAFKA_PORT" "$LOG_DIR/kafka.log"
bash "$REPO_ROOT/scripts/services.sh" status
