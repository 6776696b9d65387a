#!/usr/bin/env bash
# The test command: installs missing packages, builds, runs every test. On a machine without a GPU the
# GPU tests report "skipped" (CTest skip status), never "passed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@"
cd build && ctest --output-on-failure
