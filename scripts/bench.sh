#!/usr/bin/env bash
# The main job: builds tilegemm and runs the FP32 sweep (the textbook preset, 256..16384 squares) against
# cuBLAS, writing bench-textbook.csv. Without a GPU it says so and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/tilegemm info >/dev/null || { echo "bench: no usable CUDA GPU on this machine" >&2; exit 1; }
./build/tilegemm bench --preset textbook --csv bench-textbook.csv "$@"
