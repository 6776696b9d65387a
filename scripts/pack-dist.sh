#!/usr/bin/env bash
# Copies the built binaries into dist/ (ignored by git) for carrying to the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist
cp build/tilegemm build/tests/tilegemm_gpu_tests build/tests/cpu/tilegemm_cpu_tests dist/
strip dist/* 2>/dev/null || true
du -sh dist
