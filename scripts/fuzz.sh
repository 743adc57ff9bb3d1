#!/usr/bin/env bash
# `make fuzz` (and the short fuzz step of `make test`): Schemathesis against a switch of its
# own (test/fuzz/run.js: every component a process on a fresh database and topic prefix,
# real MariaDB and Kafka, started here if they are not running), then the survival checks.
#   FUZZ_SECONDS   the time budget of the fuzzing itself (default 1080: 18 minutes)
#   FUZZ_EXAMPLES  at most this many test cases per operation (default: as many as fit)
# Reports (Schemathesis logs and ndjson events, the 5xx requests, summary.json) go to
# $RUN_DIR/fuzz/<time>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$REPO_ROOT/scripts/lib.sh"
source "$REPO_ROOT/test/fuzz/fuzz-env.sh"

: "${FUZZ_SECONDS:=1080}"
[[ -x "$FUZZ_VENV/bin/st" ]] || die "Schemathesis is not installed in $FUZZ_VENV: run make deps"
cd "$REPO_ROOT"
bash scripts/infra-up.sh
exec node test/fuzz/run.js --seconds "$FUZZ_SECONDS" ${FUZZ_EXAMPLES:+--examples "$FUZZ_EXAMPLES"}
