#!/usr/bin/env bash
# The main job: builds tilegemm and runs the textbook preset (256..16384 squares) twice against cuBLAS:
# FP32 (Auto, the kernel the library picks, and the ladder levels) -> bench-textbook.csv and .json, then
# BF16 (Auto on tensor cores; cuBLAS is cublasGemmEx bf16 with FP32 compute) -> bench-textbook-bf16.csv
# and .json. One plot of both, bench-textbook.png, by bench/plot_gflops.py (it needs matplotlib:
# pip install matplotlib; its y axis turns log10 when BF16's rates dwarf FP32's).
# Arguments go to both sweeps (e.g. --min-time 0.2; not --preset, --dtype, --csv, --json or --plot).
# Ctrl-C stops the sweep running after its current measurement, skips the BF16 sweep if it had not
# started, and plots what was measured.
# Exit status: 0 done (interrupted or not); 1 without a usable CUDA GPU (it says so) or a failed sweep;
# a failed plot exits with the plot script's status (3: matplotlib is missing; 2: nothing to draw) after
# the sweeps' CSV and JSON files are written.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# The plot needs matplotlib; install it if missing (a failure here only costs the plot).
python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install -q matplotlib \
  || echo "bench: could not install matplotlib; the plot step will say how" >&2
./build/tilegemm info >/dev/null || { echo "bench: no usable CUDA GPU on this machine" >&2; exit 1; }
# tilegemm keeps the rows measured before a Ctrl-C and exits 0, so without this trap bash would go on to
# the next sweep.
interrupted=0
trap 'interrupted=1' INT
./build/tilegemm bench --preset textbook --csv bench-textbook.csv --json bench-textbook.json "$@"
csvs=(bench-textbook.csv)
if [ "$interrupted" = 0 ]; then
  ./build/tilegemm bench --preset textbook --dtype bf16 --csv bench-textbook-bf16.csv \
    --json bench-textbook-bf16.json "$@"
  csvs+=(bench-textbook-bf16.csv)  # not a BF16 CSV of an earlier run when this one skipped the sweep
fi
python3 -u bench/plot_gflops.py "${csvs[@]}" bench-textbook.png
