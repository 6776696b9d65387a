#!/usr/bin/env bash
# Runs bench/plot_gflops.py on a small bench-style CSV. Without matplotlib it must exit 3 with the
# install hint (checked), and the test then reports "skipped" (77): the drawing itself was not tested.
# Usage: test_plot_script.sh SCRIPT
set -uo pipefail
script=$1
command -v python3 >/dev/null || { echo "no python3: skipping"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
{
  echo 'device,m,n,k,layout,trans,dtype,kernel,status,median_ms,min_ms,max_ms,reps,tflops,ratio_vs_cublas,pct_fp32_peak,max_abs_err,tolerance'
  for s in 256 512 1024; do
    echo "\"Test GPU\",$s,$s,$s,row,NN,fp32,\"cublas\",\"ok\",1,1,1,3,$((s / 64)),1,10,,0.001"
    echo "\"Test GPU\",$s,$s,$s,row,NN,fp32,\"06-warp-tiled\",\"ok\",1,1,1,3,$((s / 80)),0.8,8,1e-5,0.001"
    echo "\"Test GPU\",$s,$s,$s,row,NN,fp32,\"01-naive\",\"FAILED: max |C - cuBLAS| = 1 > tolerance 0.001\",,,,,,,,1,0.001"
  done
} > "$dir/bench.csv"

out=$(python3 "$script" "$dir/bench.csv" "$dir/plot.png" 2>&1); rc=$?
echo "$out"
if [ $rc = 3 ]; then
  [ "$out" = "matplotlib is missing: pip install matplotlib (or apt-get install python3-matplotlib)" ] ||
    { echo "FAIL: exit 3 without the one-line install hint"; exit 1; }
  echo "matplotlib is not installed: the hint is right; skipping the drawing test"
  exit 77
fi
[ $rc = 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
head -c 8 "$dir/plot.png" | od -An -c | grep -q 'P   N   G' || { echo "FAIL: plot.png is not a PNG"; exit 1; }
python3 "$script" "$dir/bench.csv" "$dir/plot.svg" || { echo "FAIL: svg"; exit 1; }
grep -q '<svg' "$dir/plot.svg" || { echo "FAIL: plot.svg is not an SVG"; exit 1; }
python3 "$script" "$dir/bench.csv" "$dir/plot.gif" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: .gif accepted"; exit 1; }
echo "PASS"
