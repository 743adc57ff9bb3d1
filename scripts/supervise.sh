#!/usr/bin/env bash
# Keeps one service replica of the local runtime running, as Kubernetes keeps a container:
#   scripts/supervise.sh <pid-file> <command...>
# runs the command, writes its PID to <pid-file>, and when it exits (killed, or a handler
# ending itself after HANDLER_EXIT_AFTER_MS without progress) runs it again with the same
# command and environment after SERVICE_RESTART_DELAY_MS, doubling the delay on every restart
# up to SERVICE_RESTART_MAX_DELAY_MS; a run that lasted SERVICE_RESTART_RESET_S seconds or more
# starts the delay again from the first. Each exit is a line in the output (the replica's log
# under scripts/services.sh) and the number of restarts so far is in <pid-file>'s
# .restarts sibling (make status shows it).
# SIGTERM or SIGINT stop it: the signal goes to the command, the supervisor waits for it to
# exit and exits without restarting anything.
set -uo pipefail

(($# >= 2)) || { echo "usage: $0 <pid-file> <command...>" >&2; exit 2; }
pid_file="$1"
shift
restarts_file="${pid_file%.pid}.restarts"
# Their defaults are in scripts/env.sh, which scripts/services.sh has sourced.
first_delay_ms="${SERVICE_RESTART_DELAY_MS:?}"
max_delay_ms="${SERVICE_RESTART_MAX_DELAY_MS:?}"
reset_after_s="${SERVICE_RESTART_RESET_S:?}"

child=""
stopping=0
stop() {
  stopping=1
  [[ -n "$child" ]] && kill -TERM "$child" 2>/dev/null
}
trap stop TERM INT

say() { printf '=== %s: supervisor: %s ===\n' "$(date -Is)" "$*"; }
seconds_of() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

restarts=0
delay_ms="$first_delay_ms"
printf '%s\n' "$restarts" >"$restarts_file"
while :; do
  started=$SECONDS
  "$@" &
  child=$!
  printf '%s\n' "$child" >"$pid_file"
  wait "$child"
  code=$?
  # A trapped signal interrupts `wait` before the command has exited: wait for it again.
  while kill -0 "$child" 2>/dev/null; do
    wait "$child"
    code=$?
  done
  ((stopping)) && exit 0
  ((SECONDS - started >= reset_after_s)) && delay_ms="$first_delay_ms"
  restarts=$((restarts + 1))
  printf '%s\n' "$restarts" >"$restarts_file"
  say "pid $child exited with status $code after $((SECONDS - started)) s; restart $restarts in $(seconds_of "$delay_ms") s"
  # In the background so that a signal ends the wait at once.
  sleep "$(seconds_of "$delay_ms")" &
  child=$!
  wait "$child"
  ((stopping)) && exit 0
  delay_ms=$((delay_ms * 2 > max_delay_ms ? max_delay_ms : delay_ms * 2))
done
