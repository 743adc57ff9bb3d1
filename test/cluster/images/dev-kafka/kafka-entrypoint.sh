#!/usr/bin/env bash
# The dev Kafka image's entry point: writes server.properties from the environment the way the
# apache/kafka image does, formats the log dir on first start, and runs the broker in the
# foreground (as PID 1, so SIGTERM is a controlled shutdown).
#   KAFKA_FOO_BAR=x    ->  foo.bar=x   (one underscore becomes a dot)
#   KAFKA_FOO__BAR=x   ->  foo_bar=x   (two become an underscore)
#   KAFKA_FOO___BAR=x  ->  foo-bar=x   (three become a dash)
# Settings left unset take apache/kafka's defaults: one combined broker and controller on
# localhost, log dir /tmp/kraft-combined-logs, cluster id CLUSTER_ID. KAFKA_HEAP_OPTS,
# KAFKA_JVM_PERFORMANCE_OPTS and KAFKA_OPTS go to the JVM instead of server.properties.
# Any arguments replace the broker command (e.g. `bash` to look around).
set -euo pipefail

PROPERTIES=/opt/kafka/config/server.properties
LOG4J_PROPERTIES=/etc/kafka/log4j.properties
CLASSPATH_GLOB='/opt/kafka/libs/*'

if (($# > 0)); then
  exec "$@"
fi

if [[ -n "${KAFKA_ZOOKEEPER_CONNECT:-}" ]]; then
  echo "KAFKA_ZOOKEEPER_CONNECT is set, but this image runs KRaft only (no ZooKeeper mode)" >&2
  exit 1
fi

# apache/kafka's defaults (its configureDefaults), each applied only if the variable is unset.
: "${CLUSTER_ID:=5L6g3nShT-eMCtK--X86sw}"
declare -A KAFKA_DEFAULTS=(
  [KAFKA_NODE_ID]=1
  [KAFKA_PROCESS_ROLES]="broker,controller"
  [KAFKA_LISTENER_SECURITY_PROTOCOL_MAP]="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT"
  [KAFKA_LISTENERS]="PLAINTEXT://localhost:29092,CONTROLLER://localhost:29093,PLAINTEXT_HOST://0.0.0.0:9092"
  [KAFKA_ADVERTISED_LISTENERS]="PLAINTEXT://localhost:29092,PLAINTEXT_HOST://localhost:9092"
  [KAFKA_CONTROLLER_QUORUM_VOTERS]=1@localhost:29093
  [KAFKA_CONTROLLER_LISTENER_NAMES]=CONTROLLER
  [KAFKA_INTER_BROKER_LISTENER_NAME]=PLAINTEXT
  [KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR]=1
  [KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR]=1
  [KAFKA_TRANSACTION_STATE_LOG_MIN_ISR]=1
  [KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS]=0
  [KAFKA_LOG_DIRS]=/tmp/kraft-combined-logs
)
for name in "${!KAFKA_DEFAULTS[@]}"; do
  [[ -n "${!name:-}" ]] || export "$name=${KAFKA_DEFAULTS[$name]}"
done

# Variables for the JVM or the scripts around it, never broker settings (apache/kafka's list).
declare -A NOT_PROPERTIES=()
for name in KAFKA_VERSION KAFKA_HEAP_OPTS KAFKA_LOG4J_OPTS KAFKA_OPTS KAFKA_JMX_OPTS \
  KAFKA_JVM_PERFORMANCE_OPTS KAFKA_GC_LOG_OPTS KAFKA_LOG4J_ROOT_LOGLEVEL KAFKA_LOG4J_LOGGERS \
  KAFKA_TOOLS_LOG4J_LOGLEVEL KAFKA_JMX_PORT KAFKA_JMX_HOSTNAME; do
  NOT_PROPERTIES[$name]=1
done

# KAFKA_FOO___BAR__BAZ_QUX -> foo-bar_baz.qux
property_name() {
  local name="${1#KAFKA_}"
  name="${name//___/$'\x01'}"
  name="${name//__/$'\x02'}"
  name="${name//_/.}"
  name="${name//$'\x01'/-}"
  name="${name//$'\x02'/_}"
  printf '%s\n' "${name,,}"
}

write_properties() {
  local name
  {
    echo "# Written by kafka-entrypoint.sh at start-up from the KAFKA_* environment."
    while IFS= read -r name; do
      [[ -n "${NOT_PROPERTIES[$name]:-}" ]] && continue
      printf '%s=%s\n' "$(property_name "$name")" "${!name}"
    done < <(compgen -e | grep '^KAFKA_' | sort)
  } >"$PROPERTIES.tmp"
  mv "$PROPERTIES.tmp" "$PROPERTIES"
}

write_properties
echo "server.properties:"
sed 's/^/  /' "$PROPERTIES"

# KRaft needs each log dir formatted for the cluster once; --ignore-formatted makes a restart
# with data in place a no-op.
java -Xmx256m -Dlog4j.configuration="file:$LOG4J_PROPERTIES" -cp "$CLASSPATH_GLOB" \
  kafka.tools.StorageTool format --cluster-id "$CLUSTER_ID" --config "$PROPERTIES" --ignore-formatted

# kafka-server-start.sh's and kafka-run-class.sh's defaults.
: "${KAFKA_HEAP_OPTS:=-Xmx1G -Xms1G}"
: "${KAFKA_JVM_PERFORMANCE_OPTS:=-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true}"
# shellcheck disable=SC2086 # the option strings are lists of JVM options, split on purpose
exec java $KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS ${KAFKA_OPTS:-} \
  -Dlog4j.configuration="file:$LOG4J_PROPERTIES" -cp "$CLASSPATH_GLOB" \
  kafka.Kafka "$PROPERTIES"
