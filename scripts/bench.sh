#!/usr/bin/env bash
# The main job: builds tilegemm and runs the FP32 sweep (the textbook preset, 256..16384 squares) of Auto
# (the kernel the library picks) and the ladder levels against cuBLAS, writing bench-textbook.csv, .json
# and .png (the plot needs matplotlib: pip install matplotlib).
# Without a GPU it says so and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# The plot needs matplotlib; install it if missing (a failure here only costs the plot).
python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install -q matplotlib \
  || echo "bench: could not install matplotlib; the plot step will say how" >&2
./build/tilegemm info >/dev/null || { echo "bench: no usable CUDA GPU on this machine" >&2; exit 1; }
./build/tilegemm bench --preset textbook --csv bench-textbook.csv --json bench-textbook.json \
  --plot bench-textbook.png "$@"
