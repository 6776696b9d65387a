#!/usr/bin/env bash
# Runs the tilegemm command on bad input and checks how it fails: a non-zero exit status that is not a
# crash (no signal, no abort), and exactly one line on stderr, "tilegemm: error: ...", containing the
# expected text. (CTest's PASS_REGULAR_EXPRESSION alone would ignore the exit status.)
# Usage: cli_expect_error.sh EXPECTED_TEXT [--skip-if-gpu] COMMAND [ARGS...]
#   --skip-if-gpu: for "no CUDA device" cases; exits 77 (CTest's skip) when a GPU is present.
set -uo pipefail
expected=$1; shift
skip_if_gpu=0
if [ "${1:-}" = --skip-if-gpu ]; then skip_if_gpu=1; shift; fi

if [ $skip_if_gpu = 1 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "a GPU is present: skipping a test of the GPU-less error path"
  exit 77
fi

err=$(mktemp); trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err"
rc=$?
echo "command: $*"; echo "exit status: $rc"; echo "stderr:"; cat "$err"

if [ $rc = 0 ] && [ $skip_if_gpu = 1 ]; then
  echo "it succeeded, so a GPU is usable here (nvidia-smi did not list one): skipping"
  exit 77
fi
[ $rc != 0 ] || { echo "FAIL: exit status 0, expected non-zero"; exit 1; }
[ $rc -lt 128 ] || { echo "FAIL: exit status $rc: killed by a signal (a crash)"; exit 1; }
lines=$(wc -l < "$err")
[ "$lines" = 1 ] || { echo "FAIL: expected exactly one line on stderr, got $lines"; exit 1; }
grep -q '^tilegemm: error: ' "$err" || { echo "FAIL: stderr does not start with 'tilegemm: error: '"; exit 1; }
grep -qF -- "$expected" "$err" || { echo "FAIL: stderr does not contain: $expected"; exit 1; }
echo "PASS"
