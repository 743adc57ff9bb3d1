#!/usr/bin/env bash
# The infrastructure the switch needs, without its services: MariaDB, Kafka, the topics and
# the database migrations. Idempotent. Used by `make up` and by scripts/test.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

# MariaDB and Kafka start independently; start both at once to save wall time, then
# wait for both and fail if either failed.
start_infrastructure() {
  local db_pid kafka_pid failed=0
  bash "$REPO_ROOT/scripts/mariadb.sh" start &
  db_pid=$!
  bash "$REPO_ROOT/scripts/kafka.sh" start &
  kafka_pid=$!
  wait "$db_pid" || failed=1
  wait "$kafka_pid" || failed=1
  ((failed == 0)) || die "infrastructure did not start (logs in $LOG_DIR)"
}

create_topics() {
  [[ -d "$REPO_ROOT/node_modules/node-rdkafka" ]] || die "node_modules missing: run 'make deps'"
  node "$REPO_ROOT/tools/create-topics.js" || die "topic creation failed"
}

run_migrations() {
  log "running database migrations"
  node "$REPO_ROOT/tools/migrate.js" || die "migrations failed"
}

start_infrastructure
create_topics
run_migrations
log "infrastructure ready: MariaDB $DB_HOST:$DB_PORT (db $DB_NAME), Kafka $KAFKA_BROKERS"
