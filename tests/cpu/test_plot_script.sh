#!/usr/bin/env bash
# Runs bench/plot_gflops.py on a small bench-style CSV, and on that CSV with a BF16 one (the main job's
# plot: scripts/bench.sh). Without matplotlib it must exit 3 with the install hint (checked), and the test
# then reports "skipped" (77): the drawing itself was not tested. Labels and the title are read back from
# the SVG, where matplotlib writes each text as a comment above its glyphs.
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
header=$(head -n 1 "$dir/bench.csv")
# The BF16 sweep of the same sizes: Auto (tensor cores) and cuBLAS, 16x the FP32 rates (log y axis).
{
  echo "$header"
  for s in 256 512 1024; do
    echo "\"Test GPU\",$s,$s,$s,row,NN,bf16,\"cublas\",\"ok\",1,1,1,3,$((s / 4)),1,50,0.01,0.1"
    echo "\"Test GPU\",$s,$s,$s,row,NN,bf16,\"auto\",\"ok\",1,1,1,3,$((s / 5)),0.8,40,0.01,0.1"
  done
} > "$dir/bf16.csv"
# Close to the FP32 rates (within 8x): the y axis stays linear.
sed 's/,bf16,\("[a-z]*"\),"ok",1,1,1,3,[0-9]*,/,bf16,\1,"ok",1,1,1,3,20,/' "$dir/bf16.csv" > "$dir/bf16-slow.csv"
{ echo "$header"; echo '"Test GPU",256,256,256,row,NN,bf16,"auto","FAILED: x",,,,,,,,1,0.1'; } > "$dir/failed.csv"

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

# The SVG's text comments, one a line ("<!-- cublas (FP32) -->" -> "cublas (FP32)").
texts() { sed -n 's/^ *<!-- \(.*\) -->$/\1/p' "$1"; }
has() { texts "$1" | grep -qxF -- "$2" || { echo "FAIL: $1 has no text '$2'"; texts "$1"; exit 1; }; }
lacks() { ! texts "$1" | grep -qxF -- "$2" || { echo "FAIL: $1 has the text '$2'"; exit 1; }; }
expect_said() {  # expect_said WANT ARGS...: the script's output is WANT and it exits 0
  local want=$1 said; shift
  said=$(python3 "$script" "$@" 2>&1) || { echo "FAIL: exit $? for $*: $said"; exit 1; }
  [ "$said" = "$want" ] || { echo "FAIL: $*: said '$said', expected '$want'"; exit 1; }
}

# One CSV: the dtype is fixed, so it is in the title and not in the labels; solid lines, linear axis.
expect_said "wrote $dir/plot.svg (2 lines, 3 sizes)" "$dir/bench.csv" "$dir/plot.svg"
has "$dir/plot.svg" "FP32 GEMM on Test GPU — row-major, NN"
has "$dir/plot.svg" "cublas"
has "$dir/plot.svg" "06-warp-tiled"
has "$dir/plot.svg" "TFLOP/s (median)"
lacks "$dir/plot.svg" "01-naive"
! grep -q 'stroke-dasharray' "$dir/plot.svg" || { echo "FAIL: one run drawn with a dashed line"; exit 1; }

# FP32 and BF16 (the main job): four lines labelled by dtype, the BF16 run dashed, a log y axis.
expect_said "wrote $dir/both.svg (4 lines, 3 sizes, log y axis)" "$dir/bench.csv" "$dir/bf16.csv" "$dir/both.svg"
for label in "cublas (FP32)" "06-warp-tiled (FP32)" "cublas (BF16)" "auto (BF16)" \
             "GEMM on Test GPU — row-major, NN" "TFLOP/s (median, log10 scale)" "M = N = K (log2 scale)"; do
  has "$dir/both.svg" "$label"
done
for label in "cublas" "auto" "01-naive" "01-naive (FP32)" "FP32 GEMM on Test GPU — row-major, NN"; do
  lacks "$dir/both.svg" "$label"
done
grep -q 'stroke-dasharray' "$dir/both.svg" || { echo "FAIL: the BF16 run is not dashed"; exit 1; }
expect_said "wrote $dir/both.png (4 lines, 3 sizes, log y axis)" "$dir/bench.csv" "$dir/bf16.csv" "$dir/both.png"
head -c 8 "$dir/both.png" | od -An -c | grep -q 'P   N   G' || { echo "FAIL: both.png is not a PNG"; exit 1; }

# Runs within 8x of each other keep the linear axis from 0.
expect_said "wrote $dir/close.svg (4 lines, 3 sizes)" "$dir/bench.csv" "$dir/bf16-slow.csv" "$dir/close.svg"
has "$dir/close.svg" "TFLOP/s (median)"

# A CSV without "ok" rows is left out with a warning; with nothing else to draw it is an error (2).
expect_said "plot_gflops.py: $dir/failed.csv: no rows with status ok (left out of the plot)
wrote $dir/part.svg (2 lines, 3 sizes)" "$dir/bench.csv" "$dir/failed.csv" "$dir/part.svg"
python3 "$script" "$dir/failed.csv" "$dir/none.svg" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: nothing to draw"; exit 1; }
[ ! -e "$dir/none.svg" ] || { echo "FAIL: none.svg written"; exit 1; }
# The output file comes last: a CSV there is a bad argument, not an input.
python3 "$script" "$dir/bench.csv" "$dir/bf16.csv" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: no OUT accepted"; exit 1; }
python3 "$script" "$dir/plot.svg" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: one argument accepted"; exit 1; }
echo "PASS"
