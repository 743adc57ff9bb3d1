#!/usr/bin/env bash
# Runs the archives `scripts/image.sh all` wrote in a containerd of its own (root, state and
# socket under .run/images/containerd-test, so it never meets another containerd on the
# machine), the way the chart runs them, and checks what the chart relies on:
#   - the switch image: uid 1000, a read-only root filesystem, node-rdkafka loads with TLS and
#     SASL/SCRAM compiled in, no dev dependencies, and its migrate and create-topics Jobs
#     work against the two dev stand-ins below, and so does the operator's dead-letter command;
#   - dev-mysql: initialised from MYSQL_ROOT_PASSWORD and MYSQL_DATABASE, root reachable over
#     TCP with that password (and not without it);
#   - dev-kafka: started with the chart's KAFKA_* settings, topics listed from the host;
#   - k6: runs as uid 1000 with `k6` as the entry point.
# Host networking throughout, on ports nothing else here uses (the local runtime's Kafka is on
# 9192 and its MariaDB on 3307). Everything it started is stopped at the end, pass or fail.
#   test/cluster/images/smoke-test.sh              # IMAGE_TAG picks the switch archive, as in image.sh
#   SMOKE_MYSQL_PORT=13306 SMOKE_KAFKA_PORT=19092 SMOKE_KAFKA_CONTROLLER_PORT=19093 (defaults)
#   SMOKE_KEEP_IMAGES=1    leaves the imported images in the test containerd's root
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

IMAGES_DIR="$RUN_DIR/images"
TEST_DIR="$IMAGES_DIR/containerd-test"
SOCKET="$TEST_DIR/containerd.sock"
PID_FILE="$TEST_DIR/containerd.pid"
CONFIG="$TEST_DIR/config.toml"
NAMESPACE=fspiop-smoke
: "${SMOKE_MYSQL_PORT:=13306}"
: "${SMOKE_KAFKA_PORT:=19092}"
: "${SMOKE_KAFKA_CONTROLLER_PORT:=19093}"
# LOCAL-ONLY: the password of a throwaway database that lives for the length of this test.
MYSQL_TEST_PASSWORD="smoke-test-root"

ctr_() { ctr --address "$SOCKET" --namespace "$NAMESPACE" "$@"; }

switch_tag() {
  if [[ -n "${IMAGE_TAG:-}" ]]; then
    printf '%s\n' "$IMAGE_TAG"
  else
    printf '%s-%s\n' "$(node -p "require('$REPO_ROOT/package.json').version")" \
      "$(git -C "$REPO_ROOT" rev-parse --short HEAD)"
  fi
}

SWITCH_REF="localhost/fspiop-switch:$(switch_tag)"
MYSQL_REF="localhost/fspiop-switch-dev-mysql:8.0"
KAFKA_REF="localhost/fspiop-switch-dev-kafka:3.9.1"
K6_VERSION_PLAIN="${K6_VERSION#v}"
K6_REF="localhost/fspiop-switch-k6:$K6_VERSION_PLAIN"

archive_of() {
  local name="${1##*/}"
  printf '%s/%s-%s.tar\n' "$IMAGES_DIR" "${name%%:*}" "${name##*:}"
}

# ---- our containerd -------------------------------------------------------------------------

running_pid() {
  local pid
  pid="$(read_pid "$PID_FILE")"
  if pid_matches_cmdline "$pid" containerd "$CONFIG"; then
    printf '%s\n' "$pid"
  fi
}

# Only what ctr needs: no CRI (that is the cluster's containerd's business), no listeners
# besides the socket.
write_containerd_config() {
  cat >"$CONFIG" <<EOF
# Written by test/cluster/images/smoke-test.sh: a containerd for the image smoke test only.
version = 2
root = "$TEST_DIR/root"
state = "$TEST_DIR/state"
oom_score = 0
disabled_plugins = ["io.containerd.grpc.v1.cri"]

[grpc]
  address = "$SOCKET"

[ttrpc]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "$TEST_DIR/opt"
EOF
}

STARTED_CONTAINERD=0

start_containerd() {
  mkdir -p "$TEST_DIR"
  if [[ -n "$(running_pid)" ]]; then
    log "containerd for the smoke test already running (pid $(running_pid))"
    return 0
  fi
  require containerd
  write_containerd_config
  local pid polls
  pid="$(spawn "$TEST_DIR/containerd.log" containerd --config "$CONFIG")"
  printf '%s\n' "$pid" >"$PID_FILE"
  STARTED_CONTAINERD=1
  for ((polls = 100; polls > 0; polls--)); do
    ctr --address "$SOCKET" version >/dev/null 2>&1 && break
    [[ -d "/proc/$pid" ]] || break
    sleep 0.2
  done
  if ! ctr --address "$SOCKET" version >/dev/null 2>&1; then
    show_log_tail "$TEST_DIR/containerd.log"
    die "containerd (pid $pid) did not answer on $SOCKET"
  fi
  log "containerd started (pid $pid, socket $SOCKET)"
}

stop_containerd() {
  local pid
  pid="$(running_pid)"
  [[ -n "$pid" ]] || return 0
  log "stopping containerd (pid $pid)"
  stop_pids 20 "$pid"
  rm -f "$PID_FILE"
}

# ---- containers -----------------------------------------------------------------------------

require() {
  command -v "$1" >/dev/null || die "$1 is required and not installed"
}

# Removes a container of ours and its task, whatever state they are in.
remove_container() {
  local id="$1" polls
  if ctr_ task ls -q 2>/dev/null | grep -qx "$id"; then
    ctr_ task kill -s SIGTERM "$id" >/dev/null 2>&1 || true
    for ((polls = 150; polls > 0; polls--)); do
      ctr_ task ls 2>/dev/null | awk -v id="$id" '$1 == id && $3 == "RUNNING" { r = 1 } END { exit !r }' || break
      sleep 0.2
    done
    ctr_ task kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    ctr_ task delete --force "$id" >/dev/null 2>&1 || true
  fi
  ctr_ container delete "$id" >/dev/null 2>&1 || true
}

# Stops a detached container's task (SIGTERM, as the kubelet does) and starts a new one in the
# same container, whose writable layer keeps the data of the first start. $2: its log file.
restart_task() {
  local id="$1" log_file="$2" polls
  ctr_ task kill -s SIGTERM "$id" >/dev/null
  for ((polls = 300; polls > 0; polls--)); do
    ctr_ task ls 2>/dev/null | awk -v id="$id" '$1 == id && $3 == "RUNNING" { r = 1 } END { exit !r }' || break
    sleep 0.2
  done
  ((polls > 0)) || die "$id did not stop within 60 s of SIGTERM"
  ctr_ task delete "$id" >/dev/null
  : >"$log_file"
  ctr_ task start --detach --log-uri "file://$log_file" "$id" >/dev/null
}

cleanup() {
  local status=$?
  set +e
  if [[ -S "$SOCKET" ]]; then
    local id
    for id in smoke-switch smoke-migrate smoke-topics smoke-dead-letters smoke-k6 smoke-kafka smoke-mysql; do
      remove_container "$id"
    done
  fi
  ((STARTED_CONTAINERD == 0)) || stop_containerd
  # The imported images take 3 GB in this containerd's root; the archives stay in
  # .run/images, and importing them again takes about 30 s. SMOKE_KEEP_IMAGES=1 keeps them.
  # Only a stopped containerd's root with nothing mounted from it is removed.
  if [[ "${SMOKE_KEEP_IMAGES:-0}" != 1 && -z "$(running_pid)" ]] && ! grep -qF "$TEST_DIR/" /proc/mounts; then
    rm -rf "${TEST_DIR:?}/root" "${TEST_DIR:?}/state"
  fi
  exit "$status"
}

import_image() {
  local ref="$1" archive
  archive="$(archive_of "$ref")"
  [[ -f "$archive" ]] || die "no archive $archive: run scripts/image.sh all"
  local start=$SECONDS
  ctr_ images import "$archive" >/dev/null || die "ctr images import $archive failed"
  ctr_ images ls -q | grep -qx "$ref" || die "$archive did not import as $ref"
  log "imported $ref ($(numfmt --to=iec --suffix=B "$(stat -c %s "$archive")") in $((SECONDS - start)) s)"
}

# A throwaway container of the switch image as the chart runs it: read-only root filesystem,
# the image's own user (1000). $1: the container id, the rest: --env options, then `--`, then
# the command.
run_switch() {
  local id="$1"
  shift
  local -a env_options=()
  while (($# > 0)) && [[ "$1" != -- ]]; do
    env_options+=(--env "$1")
    shift
  done
  shift
  remove_container "$id"
  timeout 180 ctr --address "$SOCKET" --namespace "$NAMESPACE" run --rm --read-only --net-host \
    "${env_options[@]}" "$SWITCH_REF" "$id" "$@"
}

# ---- the checks -----------------------------------------------------------------------------

check_switch_image() {
  log "switch image: user, read-only root, node-rdkafka, dev dependencies"
  run_switch smoke-switch -- sh -c '
    set -e
    echo "id: $(id)"
    [ "$(id -u)" = 1000 ] || { echo "FAIL: runs as uid $(id -u), not 1000"; exit 1; }
    if touch /app/.write-test 2>/dev/null || touch /tmp/.write-test 2>/dev/null; then
      echo "FAIL: the root filesystem is writable"; exit 1
    fi
    echo "root filesystem: read-only"
    node -e "
      const kafka = require(\"node-rdkafka\");
      console.log(\"node\", process.version, \"node-rdkafka\", require(\"node-rdkafka/package.json\").version,
        \"librdkafka\", kafka.librdkafkaVersion);
      console.log(\"librdkafka features:\", kafka.features.join(\",\"));
      for (const feature of [\"ssl\", \"sasl_scram\", \"zstd\"]) {
        if (!kafka.features.includes(feature)) { console.log(\"FAIL: librdkafka lacks\", feature); process.exit(1); }
      }"
    for dev in eslint @eslint/js globals; do
      [ ! -e "node_modules/$dev" ] || { echo "FAIL: dev dependency $dev is in the image"; exit 1; }
    done
    echo "dev dependencies: none ($(ls node_modules | wc -l) packages in node_modules)"
    echo "NODE_ENV=$NODE_ENV"'
}

start_mysql() {
  log "dev-mysql: first start on 127.0.0.1:$SMOKE_MYSQL_PORT"
  port_open 127.0.0.1 "$SMOKE_MYSQL_PORT" && die "port $SMOKE_MYSQL_PORT is taken; set SMOKE_MYSQL_PORT"
  remove_container smoke-mysql
  : >"$TEST_DIR/mysql.log"
  ctr_ run --detach --net-host --log-uri "file://$TEST_DIR/mysql.log" \
    --env MYSQL_ROOT_PASSWORD="$MYSQL_TEST_PASSWORD" --env MYSQL_DATABASE="$DB_NAME" \
    "$MYSQL_REF" smoke-mysql /usr/local/bin/mysql-entrypoint.sh mariadbd --port="$SMOKE_MYSQL_PORT" >/dev/null
}

check_mysql() {
  local start=$SECONDS polls
  for ((polls = 300; polls > 0; polls--)); do
    mariadb --protocol=tcp -h 127.0.0.1 -P "$SMOKE_MYSQL_PORT" -u root -p"$MYSQL_TEST_PASSWORD" \
      -e 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
  if ((polls == 0)); then
    show_log_tail "$TEST_DIR/mysql.log"
    die "dev-mysql did not accept root over TCP within 60 s"
  fi
  log "dev-mysql: root connects over TCP after $((SECONDS - start)) s"
  mariadb --protocol=tcp -h 127.0.0.1 -P "$SMOKE_MYSQL_PORT" -u root -p"$MYSQL_TEST_PASSWORD" -N -e "
    SELECT CONCAT('server: ', VERSION());
    SELECT CONCAT('database ', SCHEMA_NAME, ' exists') FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '$DB_NAME';
    SELECT CONCAT('accounts: ', GROUP_CONCAT(CONCAT(User, '@', Host) ORDER BY User, Host)) FROM mysql.user WHERE User <> 'mariadb.sys';"
  if mariadb --protocol=tcp -h 127.0.0.1 -P "$SMOKE_MYSQL_PORT" -u root -e 'SELECT 1' >/dev/null 2>&1; then
    die "dev-mysql lets root in without a password"
  fi
  log "dev-mysql: root without the password is refused"
}

check_migrate() {
  log "switch image: tools/migrate.js against dev-mysql"
  run_switch smoke-migrate DB_HOST=127.0.0.1 DB_PORT="$SMOKE_MYSQL_PORT" DB_USER=root \
    DB_PASSWORD="$MYSQL_TEST_PASSWORD" DB_NAME="$DB_NAME" LOG_LEVEL=info -- node tools/migrate.js |
    tail -n 3
  local tables
  tables="$(mariadb --protocol=tcp -h 127.0.0.1 -P "$SMOKE_MYSQL_PORT" -u root -p"$MYSQL_TEST_PASSWORD" -N \
    -e "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '$DB_NAME'")"
  ((tables > 0)) || die "migrate.js ran but $DB_NAME has no tables"
  log "switch image: migrations made $tables tables in $DB_NAME"

  log "dev-mysql: restart on the same data (no second initialisation)"
  restart_task smoke-mysql "$TEST_DIR/mysql-restart.log"
  local polls
  for ((polls = 300; polls > 0; polls--)); do
    tables="$(mariadb --protocol=tcp -h 127.0.0.1 -P "$SMOKE_MYSQL_PORT" -u root -p"$MYSQL_TEST_PASSWORD" -N \
      -e "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '$DB_NAME'" 2>/dev/null)" && break
    sleep 0.2
  done
  ((polls > 0)) || { show_log_tail "$TEST_DIR/mysql-restart.log"; die "dev-mysql did not come back after a restart"; }
  ! grep -q Initialising "$TEST_DIR/mysql-restart.log" || die "dev-mysql initialised its data again on restart"
  log "dev-mysql: back after the restart with the same $tables tables"
}

start_kafka() {
  log "dev-kafka: first start with the chart's KAFKA_* settings on 127.0.0.1:$SMOKE_KAFKA_PORT"
  local port
  for port in "$SMOKE_KAFKA_PORT" "$SMOKE_KAFKA_CONTROLLER_PORT"; do
    port_open 127.0.0.1 "$port" && die "port $port is taken; set SMOKE_KAFKA_PORT / SMOKE_KAFKA_CONTROLLER_PORT"
  done
  remove_container smoke-kafka
  : >"$TEST_DIR/kafka.log"
  # The chart's dev-backends.yaml settings, with host ports instead of the pod's 9092/9093.
  ctr_ run --detach --net-host --log-uri "file://$TEST_DIR/kafka.log" \
    --env KAFKA_NODE_ID=1 \
    --env KAFKA_PROCESS_ROLES=broker,controller \
    --env KAFKA_LISTENERS="PLAINTEXT://127.0.0.1:$SMOKE_KAFKA_PORT,CONTROLLER://127.0.0.1:$SMOKE_KAFKA_CONTROLLER_PORT" \
    --env KAFKA_ADVERTISED_LISTENERS="PLAINTEXT://127.0.0.1:$SMOKE_KAFKA_PORT" \
    --env KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER \
    --env KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT \
    --env KAFKA_CONTROLLER_QUORUM_VOTERS="1@127.0.0.1:$SMOKE_KAFKA_CONTROLLER_PORT" \
    --env KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1 \
    --env KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1 \
    --env KAFKA_TRANSACTION_STATE_LOG_MIN_ISR=1 \
    --env KAFKA_AUTO_CREATE_TOPICS_ENABLE=false \
    --env KAFKA_HEAP_OPTS="-Xmx512m -Xms512m" \
    "$KAFKA_REF" smoke-kafka >/dev/null
}

# Lists the broker's topics and their partition counts from the host, with the host's
# node-rdkafka (make deps).
list_topics_from_host() {
  (cd "$REPO_ROOT" && node -e '
    const Kafka = require("node-rdkafka");
    const producer = new Kafka.Producer({ "metadata.broker.list": process.argv[1] });
    producer.connect({ timeout: 20000 }, (error) => {
      if (error) { console.error("connect:", error.message); process.exit(1); }
      producer.getMetadata({ timeout: 10000 }, (metadataError, metadata) => {
        if (metadataError) { console.error("metadata:", metadataError.message); process.exit(1); }
        const topics = metadata.topics.filter((t) => !t.name.startsWith("__"));
        console.log(`${topics.length} topics:`, topics.map((t) => `${t.name}(${t.partitions.length})`).sort().join(" "));
        producer.disconnect();
      });
    });' "127.0.0.1:$SMOKE_KAFKA_PORT")
}

check_kafka() {
  local start=$SECONDS polls
  for ((polls = 450; polls > 0; polls--)); do
    port_open 127.0.0.1 "$SMOKE_KAFKA_PORT" && break
    sleep 0.2
  done
  if ((polls == 0)); then
    show_log_tail "$TEST_DIR/kafka.log"
    die "dev-kafka did not open port $SMOKE_KAFKA_PORT within 90 s"
  fi
  log "dev-kafka: listening after $((SECONDS - start)) s"
  grep -E '^  (node.id|process.roles|listeners|auto.create.topics.enable)=' "$TEST_DIR/kafka.log" | sed 's/^ */  server.properties: /' >&2 || true
  list_topics_from_host
  log "switch image: tools/create-topics.js against dev-kafka"
  run_switch smoke-topics KAFKA_BROKERS="127.0.0.1:$SMOKE_KAFKA_PORT" -- node tools/create-topics.js | tail -n 3
  list_topics_from_host
  # The operator's dead-letter command, as charts/README.md has it run in a pod.
  log "switch image: tools/dead-letters.js list against dev-kafka"
  local letters
  letters="$(run_switch smoke-dead-letters KAFKA_BROKERS="127.0.0.1:$SMOKE_KAFKA_PORT" -- node tools/dead-letters.js list)" ||
    die "tools/dead-letters.js list failed in the switch image"
  grep -q '^prepare: 0 dead letter(s) on topic-dead-letter-prepare (1 partition(s))$' <<<"$letters" ||
    die "tools/dead-letters.js list printed: $letters"

  log "dev-kafka: restart on the same log dir (formatting skipped, topics kept)"
  restart_task smoke-kafka "$TEST_DIR/kafka-restart.log"
  for ((polls = 450; polls > 0; polls--)); do
    grep -q 'Kafka Server started' "$TEST_DIR/kafka-restart.log" && break
    sleep 0.2
  done
  ((polls > 0)) || { show_log_tail "$TEST_DIR/kafka-restart.log"; die "dev-kafka did not start again within 90 s"; }
  grep -m 1 -E 'already formatted|All of the log directories are already formatted' "$TEST_DIR/kafka-restart.log" >&2 || true
  list_topics_from_host
}

check_k6_image() {
  log "k6 image: user, and k6 as the entry point (run without a command)"
  remove_container smoke-k6
  timeout 60 ctr --address "$SOCKET" --namespace "$NAMESPACE" run --rm --read-only "$K6_REF" smoke-k6 \
    sh -c 'echo "id: $(id)"; [ "$(id -u)" = 1000 ] && k6 version'
  local usage
  usage="$(timeout 60 ctr --address "$SOCKET" --namespace "$NAMESPACE" run --rm --read-only "$K6_REF" smoke-k6)"
  grep -q 'Usage:' <<<"$usage" || die "the k6 image without a command did not print k6's usage"
  log "k6 image: without a command it runs k6 ($(grep -m 1 -o 'k6 \[command\]' <<<"$usage" || echo 'usage printed'))"
}

main() {
  ((EUID == 0)) || die "containerd and ctr need root"
  require ctr
  require mariadb
  trap cleanup EXIT
  start_containerd
  local ref
  for ref in "$SWITCH_REF" "$MYSQL_REF" "$KAFKA_REF" "$K6_REF"; do
    import_image "$ref"
  done
  check_switch_image
  start_mysql
  start_kafka
  check_mysql
  check_migrate
  check_kafka
  check_k6_image
  log "all checks passed"
}

main "$@"
