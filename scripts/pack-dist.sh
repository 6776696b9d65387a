#!/usr/bin/env bash
# Copies the built binaries the GPU machine runs into dist/ and packs them as dist.tar.xz (both
# ignored by git): carry dist.tar.xz; scripts/gpu-check.sh and scripts/blas-check.sh unpack it.
# The CPU test binary stays here: CI runs it.
#   scripts/pack-dist.sh        the command and the GPU suite (~80 MB unpacked, ~12 MB packed)
#   scripts/pack-dist.sh blas   the BLAS drop-in, its tests, the C/Fortran callers and its benchmark
#   scripts/pack-dist.sh python the Python package built for the GPU machine's CPython 3.12 (from
#                               build-py312, configured with -DPython_EXECUTABLE=<a python3.12>
#                               -DTILEGEMM_PYTHON=ON) and the command, for scripts/python-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist && mkdir -p dist
if [ "${1:-}" = blas ]; then
  cp build/blas/libtilegemm_blas.so build/tilegemm_blas_bench build/tests/blas/tilegemm_blas_tests \
     build/tests/blas/tilegemm_blas_gpu_tests build/tests/blas/blas_sgemm_program dist/
  [ -x build/tests/blas/blas_fortran_sgemm ] && cp build/tests/blas/blas_fortran_sgemm dist/
elif [ "${1:-}" = python ]; then
  mkdir -p dist/python
  cp -r build-py312/python/tilegemm dist/python/
  cp build/tilegemm dist/
else
  cp build/tilegemm build/tests/tilegemm_gpu_tests build/tilegemm_first_call dist/
fi
strip dist/* dist/python/tilegemm/*.so 2>/dev/null || true
tar cJf dist.tar.xz dist
du -sh dist dist.tar.xz
