# shellcheck shell=bash
# The local runtime's configuration: every variable, its default, in one place.
# Every script in scripts/ sources this file; each value can be overridden from the
# environment (e.g. `DB_PORT=3400 make up`). Variables are exported so that the Node
# processes started by scripts/services-up.sh see the same values (platform/config.js
# reads DB_*, KAFKA_*, PORT, SERVICE_NAME, REPLICA_INDEX).
#
# The defaults are for ONE developer machine only: they bind to 127.0.0.1 and the
# database password below is a well-known local-only value, never a deployed one.

# The repository root, whatever the caller's working directory is.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT

# Resolves a path relative to the repository root (absolute paths pass through), so that
# relative overrides like RUN_DIR=.run behave the same from any directory.
abs_path() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$REPO_ROOT/$1" ;;
  esac
}

# --- where things live -------------------------------------------------------------------
: "${RUN_DIR:=.run}"                       # state of running processes: data, logs, pids
: "${CACHE_DIR:=.cache}"                   # downloaded artifacts (Kafka jars)
: "${TOOLS_BIN:=.tools/bin}"               # go-installed tools (k6, helm)
RUN_DIR="$(abs_path "$RUN_DIR")"
CACHE_DIR="$(abs_path "$CACHE_DIR")"
TOOLS_BIN="$(abs_path "$TOOLS_BIN")"
: "${LOG_DIR:=$RUN_DIR/logs}"
: "${PID_DIR:=$RUN_DIR/pids}"
: "${SERVICES_CONF:=$REPO_ROOT/scripts/services.conf}"
export RUN_DIR CACHE_DIR TOOLS_BIN LOG_DIR PID_DIR SERVICES_CONF

# --- MariaDB -------------------------------------------------------------------------------
: "${DB_HOST:=127.0.0.1}"
: "${DB_PORT:=3307}"                       # not 3306, so a system MySQL can coexist
: "${DB_NAME:=fspiop}"
: "${DB_USER:=switch}"
: "${DB_PASSWORD:=switch-local-dev}"       # LOCAL-ONLY default; deployments set their own
: "${DB_MAX_CONNECTIONS:=500}"
: "${DB_BUFFER_POOL_SIZE:=512M}"           # InnoDB buffer pool of the local server
export DB_HOST DB_PORT DB_NAME DB_USER DB_PASSWORD DB_MAX_CONNECTIONS DB_BUFFER_POOL_SIZE

# --- operator APIs (admin 3001, settlement 3007, ALS admin 4001, built-in oracle 4003) -------
# The operator's two tokens (every API) and the narrow ones the DFSP-facing processes hold.
: "${OPERATOR_TOKEN_READ_WRITE:=local-operator-read-write}"            # LOCAL-ONLY; deployments use a Secret
: "${OPERATOR_TOKEN_READ_ONLY:=local-operator-read-only}"              # LOCAL-ONLY; deployments use a Secret
: "${OPERATOR_TOKEN_ORACLE_WRITE:=local-oracle-write-token}"           # LOCAL-ONLY; deployments use a Secret
: "${OPERATOR_TOKEN_DFSP_DIRECTORY_READ:=local-dfsp-directory-read}"   # LOCAL-ONLY; deployments use a Secret
export OPERATOR_TOKEN_READ_WRITE OPERATOR_TOKEN_READ_ONLY OPERATOR_TOKEN_ORACLE_WRITE OPERATOR_TOKEN_DFSP_DIRECTORY_READ

# --- FSPIOP signatures (JWS) ----------------------------------------------------------------
# Every DFSP message with a body must be signed (the demo, the tests and the load test sign);
# the hub signs its own callbacks with a key pair scripts/up.sh makes here if it is missing.
# A lab measuring without JWS sets JWS_VERIFICATION=off and JWS_HUB_SIGNING_KEY_PATH= (empty:
# the hub signs nothing). The public key follows the private one: a hub that signs nothing
# publishes no key, so its default is then empty, and an empty value set here stays empty.
: "${JWS_VERIFICATION:=required}"
: "${JWS_HUB_SIGNING_KEY_PATH=$RUN_DIR/jws/hub-private.pem}"    # LOCAL-ONLY; deployments use a Secret
: "${JWS_HUB_PUBLIC_KEY_PATH=${JWS_HUB_SIGNING_KEY_PATH:+$RUN_DIR/jws/hub-public.pem}}"
: "${DFSP_JWS_KEYS_DIR:=$RUN_DIR/jws/dfsps}"                   # the demo's and simulators' DFSP key pairs
export JWS_VERIFICATION JWS_HUB_SIGNING_KEY_PATH JWS_HUB_PUBLIC_KEY_PATH DFSP_JWS_KEYS_DIR

# --- callback destinations ------------------------------------------------------------------
# A callback may connect only to public addresses unless this allow-list names the range. On
# one machine every DFSP (the demo's, the tests', the simulators') listens on loopback, so the
# local runtime allows loopback, and nothing else: a LAB setting, never a deployed one.
# `CALLBACK_ALLOWED_CIDRS= make up` (empty) runs with nothing private allowed.
: "${CALLBACK_ALLOWED_CIDRS=127.0.0.0/8,::1/128}"
export CALLBACK_ALLOWED_CIDRS

# --- mutual TLS at the FSPIOP edges and on the hub's callbacks --------------------------------
# With CLIENT_IDENTITY=certificate the edges (api-adapter, quoting, account-lookup) serve HTTPS
# and refuse any FSPIOP request whose client certificate, from the scheme's CA, does not name its
# FSPIOP-Source; and the hub's own calls to DFSP endpoints that are https: URLs (the notification
# handler's, account-lookup's) present the hub's client certificate and trust the scheme's CA
# alone. scripts/up.sh makes the local scheme's CA, the edges' server certificate and the
# hub's client certificate in SCHEME_TLS_DIR if they are missing; a DFSP's is made on demand
# (scripts/scheme-ca.js <fsp>, or scripts/lib/scheme-certs.js, as the demo and the load test
# do). Secure by default: certificate. A lab relaxes it with CLIENT_IDENTITY=off: the edges
# serve plain HTTP, signatures alone prove who sent a request, and callbacks present nothing.
: "${CLIENT_IDENTITY:=certificate}"
: "${SCHEME_TLS_DIR:=$RUN_DIR/tls}"               # LOCAL-ONLY CA; deployments use their scheme's PKI
SCHEME_TLS_DIR="$(abs_path "$SCHEME_TLS_DIR")"
if [[ "$CLIENT_IDENTITY" == certificate ]]; then
  : "${TLS_CERT_PATH:=$SCHEME_TLS_DIR/server.crt}"
  : "${TLS_KEY_PATH:=$SCHEME_TLS_DIR/server.key}"
  : "${TLS_CLIENT_CA_PATH:=$SCHEME_TLS_DIR/ca.crt}"
  export TLS_CERT_PATH TLS_KEY_PATH TLS_CLIENT_CA_PATH
  : "${CALLBACK_TLS_CERT_PATH:=$SCHEME_TLS_DIR/clients/${HUB_NAME:-Hub}.crt}"
  : "${CALLBACK_TLS_KEY_PATH:=$SCHEME_TLS_DIR/clients/${HUB_NAME:-Hub}.key}"
  : "${CALLBACK_TLS_CA_PATH:=$SCHEME_TLS_DIR/ca.crt}"
  export CALLBACK_TLS_CERT_PATH CALLBACK_TLS_KEY_PATH CALLBACK_TLS_CA_PATH
fi
export CLIENT_IDENTITY SCHEME_TLS_DIR

# --- Kafka ---------------------------------------------------------------------------------
: "${KAFKA_VERSION:=3.9.2}"                # org.apache.kafka:kafka_2.13 from Maven Central
: "${KAFKA_PORT:=9192}"                    # client listener (not 9092: may be taken)
: "${KAFKA_CONTROLLER_PORT:=9193}"         # KRaft controller listener
: "${KAFKA_BROKERS:=127.0.0.1:$KAFKA_PORT}"
: "${KAFKA_TOPIC_PREFIX:=}"                # prepended to every topic name
: "${KAFKA_HEAP_OPTS:=-Xms512m -Xmx1g}"
export KAFKA_VERSION KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_BROKERS KAFKA_TOPIC_PREFIX KAFKA_HEAP_OPTS
export KAFKA_LIBS="$CACHE_DIR/kafka/libs"

# --- tools and timeouts ----------------------------------------------------------------------
: "${K6_VERSION:=v1.4.2}"
: "${HELM_VERSION:=v3.19.0}"
: "${HEALTH_TIMEOUT:=60}"                  # seconds a service replica gets to answer /health
: "${STOP_TIMEOUT:=10}"                    # seconds between SIGTERM and SIGKILL for services
: "${SERVICE_RESTART_DELAY_MS:=1000}"      # a replica that exited is started again after this,
: "${SERVICE_RESTART_MAX_DELAY_MS:=30000}" # doubled per restart up to this (scripts/supervise.sh),
: "${SERVICE_RESTART_RESET_S:=60}"         # and from the first again after a run this long
export K6_VERSION HELM_VERSION HEALTH_TIMEOUT STOP_TIMEOUT
export SERVICE_RESTART_DELAY_MS SERVICE_RESTART_MAX_DELAY_MS SERVICE_RESTART_RESET_S
export PATH="$TOOLS_BIN:$PATH"

# --- a second local runtime beside the first ---------------------------------------------------
# Every service of scripts/services.conf, the built-in oracle and the demo's DFSPs listen this
# many ports above their defaults; with a RUN_DIR, DB_PORT, KAFKA_PORT and KAFKA_CONTROLLER_PORT
# of its own, a second runtime runs beside the first (e.g. SERVICE_PORT_OFFSET=10000).
: "${SERVICE_PORT_OFFSET:=0}"
if [[ "$SERVICE_PORT_OFFSET" != 0 ]]; then
  : "${ADMIN_API_URL:=http://127.0.0.1:$((3001 + SERVICE_PORT_OFFSET))}"
  : "${ADMIN_API_BASE_URL:=$ADMIN_API_URL}"
  : "${ORACLE_PORT:=$((4003 + SERVICE_PORT_OFFSET))}"
  : "${ORACLE_BUILTIN_URL:=http://127.0.0.1:$ORACLE_PORT}"
  : "${PORTAL_SETTLEMENT_API_URL:=http://127.0.0.1:$((3007 + SERVICE_PORT_OFFSET))}"
  : "${PORTAL_ALS_ADMIN_API_URL:=http://127.0.0.1:$((4001 + SERVICE_PORT_OFFSET))}"
  export ADMIN_API_URL ADMIN_API_BASE_URL ORACLE_PORT ORACLE_BUILTIN_URL PORTAL_SETTLEMENT_API_URL PORTAL_ALS_ADMIN_API_URL
fi
export SERVICE_PORT_OFFSET
