# shellcheck shell=bash
# Helpers shared by the runtime scripts: logging, "is this PID still ours?", stopping a
# process by PID, waiting for a TCP port. Sourced after env.sh; defines functions only.

SCRIPT_NAME="$(basename "${BASH_SOURCE[1]:-$0}" .sh)"

log() { printf '[%s] %s\n' "$SCRIPT_NAME" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }

# The marker put into the environment of every process we start. Together with the
# command line it tells our processes apart from a stranger that reused the PID, and
# from the processes of another checkout (another RUN_DIR) on the same machine.
RUN_MARKER="FSPIOP_RUN_DIR=$RUN_DIR"

# Prints the PID stored in a pid file, or nothing if the file is missing or garbled.
read_pid() {
  local file="$1" pid
  [[ -r "$file" ]] || return 0
  read -r pid <"$file" || true
  [[ "$pid" =~ ^[0-9]+$ ]] && printf '%s\n' "$pid"
  return 0
}

# The command line of a live process, NULs turned into spaces ("" if it is gone).
proc_cmdline() {
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true
}

# True if the process's initial environment holds every given NAME=value exactly.
proc_has_env() {
  local pid="$1" entry env
  shift
  env="$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null)" || return 1
  for entry in "$@"; do
    grep -qxF -- "$entry" <<<"$env" || return 1
  done
}

# True if PID is alive and its command line contains every given fragment. Used for
# MariaDB and Kafka, whose command lines name our datadir / server.properties.
pid_matches_cmdline() {
  local pid="$1" cmd fragment
  shift
  [[ -n "$pid" && -d "/proc/$pid" ]] || return 1
  cmd="$(proc_cmdline "$pid")"
  [[ -n "$cmd" ]] || return 1
  for fragment in "$@"; do
    [[ "$cmd" == *"$fragment"* ]] || return 1
  done
}

# Sends SIGTERM to the given PIDs, waits up to TIMEOUT seconds for all to exit, then
# SIGKILLs the survivors. Callers have already checked that every PID is ours.
stop_pids() {
  local timeout="$1" pid polls alive
  shift
  (($# > 0)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  # Counted polls of 0.2 s rather than $SECONDS, whose whole-second steps cut the wait short.
  for ((polls = timeout * 5; ; polls--)); do
    alive=()
    for pid in "$@"; do
      [[ -d "/proc/$pid" ]] && ! is_zombie "$pid" && alive+=("$pid")
    done
    ((${#alive[@]} == 0)) && return 0
    ((polls > 0)) || break
    sleep 0.2
  done
  warn "still running after ${timeout}s, sending SIGKILL to: ${alive[*]}"
  kill -KILL "${alive[@]}" 2>/dev/null || true
}

# A zombie has exited already; only its parent's wait() is missing.
is_zombie() {
  local state
  state="$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)"
  [[ "$state" == Z ]]
}

# True if something accepts TCP connections on HOST:PORT.
port_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# Waits until HOST:PORT accepts connections, the process PID dies, or TIMEOUT seconds
# pass. Returns 0 when the port answers.
wait_for_port() {
  local host="$1" port="$2" pid="$3" timeout="$4" deadline
  deadline=$((SECONDS + timeout))
  until port_open "$host" "$port"; do
    [[ -d "/proc/$pid" ]] || return 1
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# Prints the last lines of a log file, indented, to help explain a failed start.
show_log_tail() {
  local file="$1" lines="${2:-40}"
  if [[ -s "$file" ]]; then
    printf -- '--- last %s lines of %s ---\n' "$lines" "$file" >&2
    tail -n "$lines" "$file" | sed 's/^/  /' >&2
    printf -- '---\n' >&2
  fi
}

# Starts a command in a session of its own (setsid) with stdin closed and output appended to
# LOG, so it survives the shell that started it, and prints its PID. setsid does not fork
# here (a background child of a non-interactive shell is not a group leader), so $! is the
# PID of the program itself after the exec chain setsid -> env -> program.
spawn() {
  local log="$1"
  shift
  setsid env "$RUN_MARKER" "$@" </dev/null >>"$log" 2>&1 &
  printf '%s\n' "$!"
}

# Stops the process that the calling script's `running_pid` names (it checks the process is
# ours), then removes the PID file. A PID file pointing elsewhere kills nothing.
stop_own_process() {
  local what="$1" timeout="$2" pid_file="$3" pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    log "stopping $what (pid $pid)"
    stop_pids "$timeout" "$pid"
  elif [[ -e "$pid_file" ]]; then
    log "pid file $pid_file does not point at our $what; not killing anything"
  fi
  rm -f "$pid_file"
}

# The command line of a component script: start|stop|pid, served by its cmd_start, cmd_stop
# and running_pid.
run_component_command() {
  case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    pid) running_pid ;;
    *) die "usage: $0 start|stop|pid" ;;
  esac
}
