#!/usr/bin/env bash
# Placeholder for the test pipeline (owned by the application code; refine freely):
# infrastructure up, then lint, unit and integration tests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

cd "$REPO_ROOT"
bash scripts/infra-up.sh
npm run lint
npm run test:unit
npm run test:integration
npm run test:charts
