#!/usr/bin/env bash
# Runs the GPU tests' small-shape cases under compute-sanitizer. Exit 77 (skip) without a GPU or tool.
# SANITIZER_FILTER replaces the gtest filter (default *Small*).
tool=$1; bin=$2
"$bin" --probe-device; rc=$?
[ $rc -eq 77 ] && { echo "no CUDA device: skipping"; exit 77; }
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$san" ] || { echo "compute-sanitizer not found: skipping"; exit 77; }
exec "$san" --tool "$tool" --error-exitcode 1 "$bin" --gtest_filter="${SANITIZER_FILTER:-*Small*}"
