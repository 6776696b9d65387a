#!/usr/bin/env bash
# The test command: installs missing packages, builds (the library, the command, the BLAS drop-in and
# the Python extension), runs every test (CTest, pytest among them). On a machine without a GPU the
# GPU tests report "skipped" (CTest skip status), never "passed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh -DTILEGEMM_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" "$@"
cd build && ctest --output-on-failure
