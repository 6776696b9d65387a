#!/usr/bin/env bash
# Copies the built binaries the GPU machine runs into dist/ and packs them as dist.tar.xz (both
# ignored by git): carry dist.tar.xz (the two binaries are ~80 MB unpacked, ~12 MB packed);
# scripts/gpu-check.sh unpacks it. The CPU test binary stays here: CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist && mkdir -p dist
cp build/tilegemm build/tests/tilegemm_gpu_tests dist/
strip dist/* 2>/dev/null || true
tar cJf dist.tar.xz dist
du -sh dist dist.tar.xz
