#!/usr/bin/env bash
# The dev MySQL image's entry point: on first start (no system tables in /var/lib/mysql) it
# initialises the data folder the way the mysql image does, from
#   MYSQL_ROOT_PASSWORD        root's password, for 'root'@'localhost' and 'root'@'%'
#   MYSQL_ALLOW_EMPTY_PASSWORD=yes / MYSQL_RANDOM_ROOT_PASSWORD=yes   instead of a password
#   MYSQL_DATABASE             a database to create
#   MYSQL_USER, MYSQL_PASSWORD a user with every right on MYSQL_DATABASE
# then runs the server in the foreground. Later starts use the data as it is. Any command but
# mariadbd/mysqld (or options starting with -) runs instead, e.g. `bash`.
set -euo pipefail

DATADIR=/var/lib/mysql
SOCKET=/run/mysqld/mysqld.sock

if [[ "${1:-}" == -* ]]; then
  set -- mariadbd "$@"
fi
if [[ "${1:-}" != mariadbd && "${1:-}" != mysqld ]]; then
  exec "$@"
fi
shift
# When started as root, the server is told to switch to the mysql user.
server=(mariadbd)
((EUID != 0)) || server+=(--user=mysql)

# For a string in single quotes in SQL: backslashes and quotes doubled.
sql_string() {
  local value="${1//\\/\\\\}"
  printf "'%s'" "${value//\'/\'\'}"
}

# For a name in backticks.
sql_name() {
  printf '`%s`' "${1//\`/\`\`}"
}

initialise() {
  local root_password=""
  if [[ -n "${MYSQL_ROOT_PASSWORD:-}" ]]; then
    root_password="$MYSQL_ROOT_PASSWORD"
  elif [[ "${MYSQL_RANDOM_ROOT_PASSWORD:-}" =~ ^(yes|1|true)$ ]]; then
    root_password="$(head -c 18 /dev/urandom | base64)"
    echo "GENERATED ROOT PASSWORD: $root_password"
  elif [[ ! "${MYSQL_ALLOW_EMPTY_PASSWORD:-}" =~ ^(yes|1|true)$ ]]; then
    echo "The database is uninitialised and no root password is given: set MYSQL_ROOT_PASSWORD" \
      "(or MYSQL_ALLOW_EMPTY_PASSWORD=yes or MYSQL_RANDOM_ROOT_PASSWORD=yes)" >&2
    exit 1
  fi

  echo "Initialising $DATADIR"
  mariadb-install-db --user=mysql --datadir="$DATADIR" --skip-test-db \
    --auth-root-authentication-method=normal >/dev/null

  # A first server on the socket only, so no client can connect before root has a password.
  "${server[@]}" --skip-networking --socket="$SOCKET" "$@" &
  local pid=$! i
  for ((i = 0; i < 60; i++)); do
    mariadb-admin --socket="$SOCKET" --user=root ping >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { echo "mariadbd exited during initialisation" >&2; exit 1; }
    sleep 1
  done
  ((i < 60)) || { echo "mariadbd did not answer within 60 s during initialisation" >&2; exit 1; }

  local password_sql sql
  password_sql="$(sql_string "$root_password")"
  # mariadb-install-db also makes passwordless root@127.0.0.1, root@::1 and root@<hostname>
  # (and anonymous users): only root@localhost and root@% are kept, as in the mysql image.
  sql="DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1', ''@'localhost';
EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname, '\\'');
EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS \\'\\'@\\'', @@hostname, '\\'');
CREATE OR REPLACE USER 'root'@'%' IDENTIFIED BY $password_sql;
GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;
ALTER USER 'root'@'localhost' IDENTIFIED BY $password_sql;"
  if [[ -n "${MYSQL_DATABASE:-}" ]]; then
    sql+=$'\n'"CREATE DATABASE IF NOT EXISTS $(sql_name "$MYSQL_DATABASE");"
  fi
  if [[ -n "${MYSQL_USER:-}" ]]; then
    [[ "$MYSQL_USER" != root ]] || { echo "MYSQL_USER=root is not allowed: root is MYSQL_ROOT_PASSWORD's" >&2; exit 1; }
    sql+=$'\n'"CREATE OR REPLACE USER $(sql_string "$MYSQL_USER")@'%' IDENTIFIED BY $(sql_string "${MYSQL_PASSWORD:-}");"
    if [[ -n "${MYSQL_DATABASE:-}" ]]; then
      sql+=$'\n'"GRANT ALL ON $(sql_name "$MYSQL_DATABASE").* TO $(sql_string "$MYSQL_USER")@'%';"
    fi
  fi
  sql+=$'\n'"FLUSH PRIVILEGES;"
  mariadb --socket="$SOCKET" --user=root <<<"$sql"

  mariadb-admin --socket="$SOCKET" --user=root --password="$root_password" shutdown
  wait "$pid" || true
  echo "Initialised $DATADIR${MYSQL_DATABASE:+ with database $MYSQL_DATABASE}"
}

if ((EUID == 0)); then
  mkdir -p "$DATADIR" /run/mysqld
  chown mysql:mysql "$DATADIR" /run/mysqld
fi
[[ -d "$DATADIR/mysql" ]] || initialise "$@"
exec "${server[@]}" "$@"
