#!/usr/bin/env bash
# `make test`: MariaDB and Kafka up (scripts/infra-up.sh, a no-op when they run), then lint,
# unit, integration tests, a short fuzz run and chart tests against the real servers. Stops at the first failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

cd "$REPO_ROOT"
bash scripts/infra-up.sh
npm run lint
npm run test:unit
npm run test:repositories
npm run test:integration
# A short fuzz run (test/fuzz/): no 5xx, no process lost, every handler still consuming, gate.
FUZZ_SECONDS="${TEST_FUZZ_SECONDS:-80}" bash scripts/fuzz.sh
npm run test:charts
