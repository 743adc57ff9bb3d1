#!/usr/bin/env bash
# Runs the switch's MariaDB as a private process: its own datadir, socket, pid file and port
# under $RUN_DIR/mariadb, ignoring the machine's my.cnf, so it never touches a system MySQL.
#   scripts/mariadb.sh start   # idempotent: initialises once, starts if not running,
#                              # (re)applies database, user and grants
#   scripts/mariadb.sh stop    # SIGTERM (clean InnoDB shutdown) to our PID only
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

MARIADB_DIR="$RUN_DIR/mariadb"
DATA_DIR="$MARIADB_DIR/data"
SOCKET="$MARIADB_DIR/mariadb.sock"
PID_FILE="$MARIADB_DIR/mariadbd.pid"
LOG_FILE="$LOG_DIR/mariadb.log"
START_TIMEOUT=60
STOP_TIMEOUT_DB=120 # InnoDB flushes dirty pages on a clean shutdown; give it time

# mariadbd refuses to run as root unless told to; elsewhere it runs as the caller.
os_user() { id -un; }

# Our mariadbd is the one whose command line names our datadir.
running_pid() {
  local pid
  pid="$(read_pid "$PID_FILE")"
  if pid_matches_cmdline "$pid" mariadbd "--datadir=$DATA_DIR"; then
    printf '%s\n' "$pid"
  fi
}

# The server's own account for administration: mariadb-install-db creates root@localhost
# and <os user>@localhost with unix_socket authentication, so the OS user who ran the
# install logs in over the socket without a password.
admin_sql() {
  mariadb --no-defaults --socket="$SOCKET" --user="$(os_user)" --batch "$@"
}

initialise_datadir() {
  [[ -d "$DATA_DIR/mysql" ]] && return 0
  log "initialising a new datadir in $DATA_DIR"
  mkdir -p "$DATA_DIR"
  mariadb-install-db --no-defaults --datadir="$DATA_DIR" --user="$(os_user)" \
    --skip-test-db --auth-root-authentication-method=socket >>"$LOG_FILE" 2>&1 ||
    { show_log_tail "$LOG_FILE"; die "mariadb-install-db failed"; }
}

start_server() {
  local pid
  if port_open 127.0.0.1 "$DB_PORT"; then
    die "port $DB_PORT is taken by another process; set DB_PORT to a free port"
  fi
  log "starting mariadbd on 127.0.0.1:$DB_PORT"
  # innodb_flush_log_at_trx_commit=1: a committed transfer survives a crash (durable).
  pid="$(spawn "$LOG_FILE" mariadbd --no-defaults \
    --user="$(os_user)" \
    --datadir="$DATA_DIR" \
    --socket="$SOCKET" \
    --pid-file="$PID_FILE" \
    --port="$DB_PORT" \
    --bind-address=127.0.0.1 \
    --skip-name-resolve \
    --innodb-flush-log-at-trx-commit=1 \
    --innodb-buffer-pool-size="$DB_BUFFER_POOL_SIZE" \
    --max-connections="$DB_MAX_CONNECTIONS" \
    --max-allowed-packet=64M \
    --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_bin)"
  # mariadbd writes the pid file itself once it is up; write it now too so that a start
  # that hangs can still be stopped by `make down`.
  printf '%s\n' "$pid" >"$PID_FILE"
  wait_until_ready "$pid"
}

wait_until_ready() {
  local pid="$1" deadline=$((SECONDS + START_TIMEOUT))
  until admin_sql -e 'SELECT 1' >/dev/null 2>&1; do
    if [[ ! -d "/proc/$pid" ]] || ((SECONDS >= deadline)); then
      show_log_tail "$LOG_FILE"
      die "mariadbd did not become ready (log: $LOG_FILE)"
    fi
    sleep 0.2
  done
  log "mariadbd is ready (pid $pid)"
}

# Escapes a value for a single-quoted SQL string literal.
sql_quote() {
  local value="${1//\\/\\\\}"
  printf "'%s'" "${value//\'/\'\'}"
}

# Database, application user (for TCP on 127.0.0.1 and the socket's 'localhost') and
# grants. Re-applied on every start so that changed DB_* settings take effect. ALL on *.*
# because integration tests create a database per run.
provision() {
  local password host sql=""
  password="$(sql_quote "$DB_PASSWORD")"
  sql+="CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;"
  for host in 127.0.0.1 localhost; do
    sql+="CREATE USER IF NOT EXISTS '$DB_USER'@'$host' IDENTIFIED BY $password;"
    sql+="ALTER USER '$DB_USER'@'$host' IDENTIFIED BY $password;"
    sql+="GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'$host';"
  done
  admin_sql -e "$sql" || die "could not create database $DB_NAME / user $DB_USER"
  log "database '$DB_NAME' and user '$DB_USER' ready on $DB_HOST:$DB_PORT"
}

cmd_start() {
  mkdir -p "$MARIADB_DIR" "$LOG_DIR"
  command -v mariadbd >/dev/null || die "mariadbd is not installed: run 'make deps'"
  initialise_datadir
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    log "mariadbd already running (pid $pid)"
    wait_until_ready "$pid"
  else
    rm -f "$PID_FILE" "$SOCKET"
    start_server
  fi
  provision
}

cmd_stop() {
  stop_own_process mariadbd "$STOP_TIMEOUT_DB" "$PID_FILE"
}

run_component_command "$@"
