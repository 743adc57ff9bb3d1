# shellcheck shell=bash
# The fuzzer's pinned version and where it lives (sourced after scripts/env.sh by
# scripts/deps.sh and scripts/fuzz.sh; both values can be overridden from the environment).
: "${SCHEMATHESIS_VERSION:=4.32.5}"        # Schemathesis from PyPI
: "${FUZZ_VENV:=$RUN_DIR/venv}"            # its virtualenv (under .run/, never committed)
export SCHEMATHESIS_VERSION FUZZ_VENV
