#!/usr/bin/env bash
# Starts, stops and lists the switch's Node services listed in scripts/services.conf.
# Each replica is its own process, kept running by a supervisor of its own (scripts/supervise.sh)
# in its own session (setsid), so both outlive the shell; a replica that exits is started again
# after a short, growing delay, as Kubernetes restarts a container:
#   PORT=<basePort + SERVICE_PORT_OFFSET + i> REPLICA_INDEX=<i> SERVICE_NAME=<name>, plus
#   everything env.sh exports;
#   output (the supervisor's restart lines too) to $LOG_DIR/<name>-<i>.log, the replica's PID to
#   $PID_DIR/<name>-<i>.pid, the supervisor's to <name>-<i>.supervisor.pid, restarts so far in
#   <name>-<i>.restarts.
#   scripts/services.sh start    # idempotent; waits for GET /health = 200 on every replica
#   scripts/services.sh stop     # supervisors first (no restart after), then the replicas:
#                                # SIGTERM, up to STOP_TIMEOUT s, then SIGKILL; our PIDs only
#   scripts/services.sh status   # table of replicas
# PROFILE=compact starts the hosts of scripts/services-compact.conf instead: each replica of a
# host is one process (scripts/compact-host.js) running several components, each on the port
# services.conf gives it (basePort + SERVICE_PORT_OFFSET + i), each checked on its own /health,
# and listed under its host by `status`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

# Parsed services.conf: parallel arrays, one entry per service.
SVC_NAMES=()
SVC_ENTRIES=()
SVC_PORTS=()
SVC_REPLICAS=()
# In the compact profile, the components of each host (comma-separated); empty otherwise.
SVC_MEMBERS=()

PROFILE="${PROFILE:-separate}"
[[ "$PROFILE" == separate || "$PROFILE" == compact ]] || die "PROFILE must be separate or compact, got '$PROFILE'"
: "${SERVICES_COMPACT_CONF:=$REPO_ROOT/scripts/services-compact.conf}"
COMPACT_HOST="$REPO_ROOT/scripts/compact-host.js"

[[ "$SERVICE_PORT_OFFSET" =~ ^[0-9]+$ ]] || die "SERVICE_PORT_OFFSET must be a whole number, got '$SERVICE_PORT_OFFSET'"

# The FSPIOP edges (as scripts/lib/scheme-certs.js lists them): HTTPS when TLS_CERT_PATH is set.
FSPIOP_EDGES=" api-adapter quoting account-lookup "
# The processes that call DFSPs: with the hub's client certificate when CALLBACK_TLS_CERT_PATH is set.
CALLBACK_SENDERS=" notification account-lookup "

# ADMIN_API_REPLICAS for admin-api.
replicas_var() {
  local name="${1^^}"
  printf '%s_REPLICAS\n' "${name//-/_}"
}

read_services_conf() {
  local name entry port replicas extra var lineno=0
  [[ -r "$SERVICES_CONF" ]] || die "cannot read $SERVICES_CONF"
  while read -r name entry port replicas extra || [[ -n "${name:-}" ]]; do
    lineno=$((lineno + 1))
    [[ -z "${name:-}" || "$name" == \#* ]] && continue
    [[ -n "$replicas" && -z "${extra:-}" && "$port" =~ ^[0-9]+$ && "$replicas" =~ ^[0-9]+$ ]] ||
      die "$SERVICES_CONF:$lineno: expected 'name entry basePort defaultReplicas'"
    var="$(replicas_var "$name")"
    replicas="${!var:-$replicas}"
    [[ "$replicas" =~ ^[0-9]+$ ]] || die "$var must be a whole number, got '$replicas'"
    SVC_NAMES+=("$name")
    SVC_ENTRIES+=("$(abs_path "$entry")")
    SVC_PORTS+=("$((port + SERVICE_PORT_OFFSET))")
    SVC_REPLICAS+=("$replicas")
    SVC_MEMBERS+=("")
  done <"$SERVICES_CONF"
  if [[ "$PROFILE" == compact ]]; then read_compact_conf; fi
}

# Replaces the services read from services.conf by the hosts of services-compact.conf, each
# entry the compact host, its port its first component's, its members its components.
read_compact_conf() {
  local name members replicas extra var member s lineno=0 known
  local -A base_port=()
  for s in "${!SVC_NAMES[@]}"; do base_port[${SVC_NAMES[$s]}]="${SVC_PORTS[$s]}"; done
  SVC_NAMES=() SVC_ENTRIES=() SVC_PORTS=() SVC_REPLICAS=() SVC_MEMBERS=()
  [[ -r "$SERVICES_COMPACT_CONF" ]] || die "cannot read $SERVICES_COMPACT_CONF"
  while read -r name members replicas extra || [[ -n "${name:-}" ]]; do
    lineno=$((lineno + 1))
    [[ -z "${name:-}" || "$name" == \#* ]] && continue
    [[ -n "$replicas" && -z "${extra:-}" && "$replicas" =~ ^[0-9]+$ ]] ||
      die "$SERVICES_COMPACT_CONF:$lineno: expected 'name component,component,... defaultReplicas'"
    for member in ${members//,/ }; do
      known="${base_port[$member]:-}"
      [[ -n "$known" ]] || die "$SERVICES_COMPACT_CONF:$lineno: $member is not a service of $SERVICES_CONF"
    done
    var="$(replicas_var "$name")"
    replicas="${!var:-$replicas}"
    [[ "$replicas" =~ ^[0-9]+$ ]] || die "$var must be a whole number, got '$replicas'"
    SVC_NAMES+=("$name")
    SVC_ENTRIES+=("$COMPACT_HOST")
    SVC_PORTS+=("${base_port[${members%%,*}]}")
    SVC_REPLICAS+=("$replicas")
    # Each member with its base port: replica i adds i to every one (host_args).
    local with_ports=""
    for member in ${members//,/ }; do with_ports+="${with_ports:+,}$member=${base_port[$member]}"; done
    SVC_MEMBERS+=("$with_ports")
  done <"$SERVICES_COMPACT_CONF"
}

# The compact host's argument for replica INDEX of members "name=basePort,...": each port + INDEX.
host_args() {
  local members="$1" index="$2" item out=""
  for item in ${members//,/ }; do out+="${out:+,}${item%%=*}=$((${item##*=} + index))"; done
  printf '%s\n' "$out"
}

# "component port" lines of a replica: its members' (a compact host's argument), or itself.
replica_components() {
  local name="$1" port="$2" members="${3:-}" item
  if [[ -z "$members" ]]; then printf '%s %s\n' "$name" "$port"; return; fi
  for item in ${members//,/ }; do printf '%s %s\n' "${item%%=*}" "${item##*=}"; done
}

# A replica is ours if it runs node and its environment carries our run marker, its name
# and its index. The environment, not the command line, is checked because a Node program
# may rename itself (process.title rewrites /proc/<pid>/cmdline); a reused PID fails both.
replica_is_ours() {
  local pid="$1" name="$2" index="$3" exe
  [[ -n "$pid" && -d "/proc/$pid" ]] || return 1
  is_zombie "$pid" && return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 1
  [[ "$(basename "$exe")" == node* ]] || return 1
  proc_has_env "$pid" "$RUN_MARKER" "SERVICE_NAME=$name" "REPLICA_INDEX=$index"
}

pid_file() { printf '%s/%s-%s.pid\n' "$PID_DIR" "$1" "$2"; }
supervisor_pid_file() { printf '%s/%s-%s.supervisor.pid\n' "$PID_DIR" "$1" "$2"; }
restarts_file() { printf '%s/%s-%s.restarts\n' "$PID_DIR" "$1" "$2"; }
log_file() { printf '%s/%s-%s.log\n' "$LOG_DIR" "$1" "$2"; }

# Prints the PID of replica NAME/INDEX if it is running and ours.
replica_pid() {
  local pid
  pid="$(read_pid "$(pid_file "$1" "$2")")"
  if replica_is_ours "$pid" "$1" "$2"; then printf '%s\n' "$pid"; fi
}

# Prints the PID of the supervisor of replica NAME/INDEX if it is running and ours: bash
# running scripts/supervise.sh with our run marker, the replica's name and index.
supervisor_pid() {
  local pid exe
  pid="$(read_pid "$(supervisor_pid_file "$1" "$2")")"
  [[ -n "$pid" && -d "/proc/$pid" ]] && ! is_zombie "$pid" || return 0
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 0
  [[ "$(basename "$exe")" == bash* && "$(proc_cmdline "$pid")" == *"scripts/supervise.sh"* ]] || return 0
  if proc_has_env "$pid" "$RUN_MARKER" "SERVICE_NAME=$1" "REPLICA_INDEX=$2"; then printf '%s\n' "$pid"; fi
}

# Restarts of replica NAME/INDEX since its supervisor started ("-": no supervisor file).
restarts_of() {
  local count
  read -r count <"$(restarts_file "$1" "$2")" 2>/dev/null || count=-
  printf '%s\n' "${count:--}"
}

start_replica() {
  local name="$1" entry="$2" port="$3" index="$4" members="${5:-}" pid="" supervisor log polls
  local -a args=()
  [[ -z "$members" ]] || args=("$members")
  local component member_port
  log="$(log_file "$name" "$index")"
  while read -r component member_port; do
    if port_open 127.0.0.1 "$member_port"; then
      die "port $member_port (for $component, $name replica $index) is taken by another process (another PROFILE's? make down first)"
    fi
  done < <(replica_components "$name" "$port" "$members")
  printf '\n=== %s: starting %s replica %s on port %s ===\n' "$(date -Is)" "$name" "$index" "$port" >>"$log"
  # SERVICE_NODE_ARGS: extra node flags for every service, e.g. "--cpu-prof
  # --cpu-prof-dir=/tmp/prof" to profile a load run (flags NODE_OPTIONS refuses).
  rm -f "$(pid_file "$name" "$index")"
  # shellcheck disable=SC2086
  supervisor="$(spawn "$log" env PORT="$port" REPLICA_INDEX="$index" SERVICE_NAME="$name" \
    bash "$REPO_ROOT/scripts/supervise.sh" "$(pid_file "$name" "$index")" node ${SERVICE_NODE_ARGS:-} "$entry" "${args[@]+"${args[@]}"}")"
  printf '%s\n' "$supervisor" >"$(supervisor_pid_file "$name" "$index")"
  # The supervisor writes the replica's PID file once it has started it.
  for ((polls = 50; polls > 0; polls--)); do
    pid="$(read_pid "$(pid_file "$name" "$index")")"
    [[ -n "$pid" ]] && break
    sleep 0.1
  done
  log "started $name replica $index (pid ${pid:-?}, supervisor $supervisor, port $port${members:+: $members})"
}

# The URL of a replica's /health: over HTTPS for an edge that serves it, trusting the local
# scheme's CA (the health check needs no client certificate).
health_url() {
  local name="$1" port="$2"
  if [[ -n "${TLS_CERT_PATH:-}" && "$FSPIOP_EDGES" == *" $name "* ]]; then
    printf 'https://127.0.0.1:%s/health\n' "$port"
  else
    printf 'http://127.0.0.1:%s/health\n' "$port"
  fi
}

health_status() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 2 --cacert "$SCHEME_TLS_DIR/ca.crt" "$(health_url "$1" "$2")"
}

# An edge left running from a start with other TLS settings (CLIENT_IDENTITY changed since)
# would answer its health check, and every DFSP, in the other scheme; a process that calls
# DFSPs, started without the hub's client certificate, would be refused by every DFSP that
# requires it (the demo's do with mutual TLS on): neither is reused.
check_tls_unchanged() {
  local name="$1" index="$2" pid="$3" members="${4:-}" running variable component port
  local -a variables=()
  while read -r component port; do
    [[ "$FSPIOP_EDGES" == *" $component "* ]] && variables+=(TLS_CERT_PATH)
    [[ "$CALLBACK_SENDERS" == *" $component "* ]] && variables+=(CALLBACK_TLS_CERT_PATH)
  done < <(replica_components "$name" 0 "$members")
  for variable in "${variables[@]+"${variables[@]}"}"; do
    running="$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n "s/^$variable=//p" | tail -n 1)"
    [[ "$running" == "${!variable:-}" ]] ||
      die "$name replica $index (pid $pid) runs with $variable='$running', not '${!variable:-}' (CLIENT_IDENTITY=$CLIENT_IDENTITY): stop it first (make down)"
  done
}

# Waits until every "name index port fresh [component]" line answers GET /health with 200 (a
# compact host has a line per component, each on its own port). Fails at once
# when a replica started now (fresh=1) exits, stopping its supervisor so that it does not
# restart in a loop, or when an older one is gone with no supervisor to restart it; fails after
# HEALTH_TIMEOUT seconds otherwise; each time showing the replica's log. An older replica
# between two restarts by its supervisor is waited for.
wait_healthy() {
  local -a pending=("$@") still
  local item name index port fresh component pid deadline=$((SECONDS + HEALTH_TIMEOUT))
  while ((${#pending[@]} > 0)); do
    still=()
    for item in "${pending[@]}"; do
      read -r name index port fresh component <<<"$item"
      pid="$(replica_pid "$name" "$index")"
      if [[ "$fresh" == 1 && "$(restarts_of "$name" "$index")" != 0 ]] || [[ -z "$pid" && ( "$fresh" == 1 || -z "$(supervisor_pid "$name" "$index")" ) ]]; then
        stop_replicas "$name $index $(pid_file "$name" "$index")"
        show_log_tail "$(log_file "$name" "$index")"
        die "$name replica $index exited during start-up"
      fi
      if [[ -z "$pid" ]]; then
        still+=("$item")
        continue
      fi
      if [[ "$(health_status "${component:-$name}" "$port")" != 200 ]]; then
        still+=("$item")
      fi
    done
    pending=("${still[@]+"${still[@]}"}")
    ((${#pending[@]} == 0)) && break
    if ((SECONDS >= deadline)); then
      for item in "${pending[@]}"; do
        read -r name index port fresh component <<<"$item"
        show_log_tail "$(log_file "$name" "$index")"
        warn "$name replica $index: no 200 from $(health_url "${component:-$name}" "$port")"
      done
      die "services not healthy after ${HEALTH_TIMEOUT}s"
    fi
    sleep 0.3
  done
}

# Replicas with a PID file (their own or their supervisor's) in PID_DIR, as "name index file"
# lines, file being the replica's PID file; the index follows the last dash.
list_pid_files() {
  local file base
  local -A seen=()
  for file in "$PID_DIR"/*.pid; do
    [[ -e "$file" ]] || continue
    base="$(basename "$file" .pid)"
    base="${base%.supervisor}"
    [[ "$base" =~ ^(.+)-([0-9]+)$ && -z "${seen[$base]:-}" ]] || continue
    seen[$base]=1
    printf '%s %s %s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "$(pid_file "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")"
  done
}

# Stops replicas whose "name index file" lines are given (only those still ours): their
# supervisors first, each of which stops its replica, waits for it and restarts nothing; then
# any replica still running (unsupervised, or its supervisor killed after STOP_TIMEOUT).
stop_replicas() {
  local -a supervisors=() pids=() files=()
  local name index file pid supervisor line
  for line in "$@"; do
    read -r name index file <<<"$line"
    supervisor="$(supervisor_pid "$name" "$index")"
    if [[ -n "$supervisor" ]]; then
      pid="$(replica_pid "$name" "$index")"
      log "stopping $name replica $index (supervisor $supervisor, pid ${pid:-none: between restarts})"
      supervisors+=("$supervisor")
    fi
    files+=("$(supervisor_pid_file "$name" "$index")" "$(restarts_file "$name" "$index")")
  done
  stop_pids "$STOP_TIMEOUT" "${supervisors[@]+"${supervisors[@]}"}"
  for line in "$@"; do
    read -r name index file <<<"$line"
    pid="$(read_pid "$file")"
    if replica_is_ours "$pid" "$name" "$index"; then
      log "stopping $name replica $index (pid $pid)"
      pids+=("$pid")
    elif [[ -n "$pid" && -d "/proc/$pid" ]] && ! is_zombie "$pid"; then
      log "$file: pid $pid is not our $name replica $index any more; not killing it"
    fi
    files+=("$file")
  done
  stop_pids "$STOP_TIMEOUT" "${pids[@]+"${pids[@]}"}"
  rm -f "${files[@]+"${files[@]}"}"
}

# Replicas left over from an earlier start with a higher replica count.
stop_surplus_replicas() {
  local -a surplus=()
  local line name index file s
  while read -r line; do
    [[ -n "$line" ]] || continue
    read -r name index file <<<"$line"
    for s in "${!SVC_NAMES[@]}"; do
      if [[ "${SVC_NAMES[$s]}" == "$name" ]] && ((index >= SVC_REPLICAS[s])); then
        surplus+=("$line")
      fi
    done
  done < <(list_pid_files)
  stop_replicas "${surplus[@]+"${surplus[@]}"}"
}

cmd_start() {
  local -a started=() checks=()
  local s i name entry port pid supervisor members component member_port fresh
  mkdir -p "$LOG_DIR" "$PID_DIR"
  read_services_conf
  for s in "${!SVC_NAMES[@]}"; do
    name="${SVC_NAMES[$s]}" entry="${SVC_ENTRIES[$s]}"
    [[ -f "$entry" ]] || die "$name: entry point $entry does not exist"
    for ((i = 0; i < SVC_REPLICAS[s]; i++)); do
      port=$((SVC_PORTS[s] + i))
      members=""
      [[ -z "${SVC_MEMBERS[$s]}" ]] || members="$(host_args "${SVC_MEMBERS[$s]}" "$i")"
      pid="$(replica_pid "$name" "$i")"
      supervisor="$(supervisor_pid "$name" "$i")"
      if [[ -n "$pid" || -n "$supervisor" ]]; then
        [[ -z "$pid" ]] || check_tls_unchanged "$name" "$i" "$pid" "$members"
        log "$name replica $i already running (pid ${pid:-none: being restarted}, port $port${supervisor:+, supervisor $supervisor})"
        fresh=0
      else
        start_replica "$name" "$entry" "$port" "$i" "$members"
        started+=("$name-$i")
        fresh=1
      fi
      while read -r component member_port; do
        checks+=("$name $i $member_port $fresh $component")
      done < <(replica_components "$name" "$port" "$members")
    done
  done
  stop_surplus_replicas
  wait_healthy "${checks[@]+"${checks[@]}"}"
  log "all ${#checks[@]} replica(s) healthy (${#started[@]} started now)"
}

cmd_stop() {
  local -a lines=()
  local line
  while read -r line; do [[ -n "$line" ]] && lines+=("$line"); done < <(list_pid_files)
  stop_replicas "${lines[@]+"${lines[@]}"}"
}

# One line per replica with a pid file: NAME REPLICA PID PORT STATE RESTARTS LOG; STATE is
# restarting while its supervisor waits to start it again.
cmd_status() {
  local name index file pid port state
  while read -r name index file; do
    [[ -n "$name" ]] || continue
    pid="$(read_pid "$file")"
    port="-"
    if replica_is_ours "$pid" "$name" "$index"; then
      state=running
      port="$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^PORT=//p' | tail -n 1)"
    elif [[ -n "$(supervisor_pid "$name" "$index")" ]]; then
      state=restarting
    else
      state=stopped
    fi
    printf '%-22s %-7s %-8s %-6s %-10s %-8s %s\n' "$name" "$index" "${pid:--}" "$port" "$state" \
      "$(restarts_of "$name" "$index")" "$(log_file "$name" "$index")"
    [[ "$state" == running ]] && status_of_members "$index" "$pid"
  done < <(list_pid_files)
}

# Under a running compact host, a line per component it runs (read from its command line, so
# whichever profile is asked for now): its port and its /health, healthy or unhealthy (code).
status_of_members() {
  local index="$1" pid="$2" members component port code
  [[ "$(proc_cmdline "$pid")" == *compact-host.js* ]] || return 0
  members="$(tr '\0' '\n' <"/proc/$pid/cmdline" | tail -n 1)"
  while read -r component port; do
    code="$(health_status "$component" "$port")"
    if [[ "$code" == 200 ]]; then code=healthy; else code="unhealthy($code)"; fi
    printf '%-22s %-7s %-8s %-6s %-10s %-8s %s\n' "  $component" "$index" "$pid" "$port" "$code" - -
  done < <(replica_components compact 0 "$members")
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) die "usage: $0 start|stop|status" ;;
esac
