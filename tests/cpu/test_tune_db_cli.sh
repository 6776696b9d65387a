#!/usr/bin/env bash
# tilegemm tune's database actions without a GPU: --list on a missing database, --import (and its
# keep-the-faster rule), --list, --export and re-import into a second database, --clear, and a bad
# export file that must leave the database untouched.
# Usage: test_tune_db_cli.sh TILEGEMM_BINARY
set -euo pipefail
cli=$1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
db=$dir/sub/tuning.sqlite3
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect TEXT OUTPUT
  grep -qF -- "$1" <<<"$2" || fail "expected '$1' in: $2"
}

out=$("$cli" tune --db "$db" --list)
expect "no tuning database at $db" "$out"

cat > "$dir/in.json" <<'JSON'
{"format": "tilegemm tuning database export 1", "entries": [
 {"device_name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132, "driver_version": 13000,
  "library_version": "0.1.0", "source_hash": "0123456789abcdef", "problem": "gemm f32 4096x4096x4096 NN a16 b16 beta0",
  "config": "tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert", "measured_us": 1500.5, "auto_us": 1510.0, "tuned_at": "2026-11-25T10:00:00Z"},
 {"device_name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132, "driver_version": 13000,
  "library_version": "0.1.0", "source_hash": "0123456789abcdef", "problem": "gemm f32 1x4096x4096 NN a16 b16 beta0",
  "config": "gemv-rows:s1:k1", "measured_us": 27.25, "auto_us": 27.25, "tuned_at": "2026-11-25T10:00:01Z"}]}
JSON
out=$("$cli" tune --db "$db" --import "$dir/in.json")
expect "imported 2 of 2 entries" "$out"
out=$("$cli" tune --db "$db" --list)
expect "2 entries" "$out"
expect "NVIDIA H100 80GB HBM3, cc 9.0, 132 SMs, driver 13000" "$out"
expect "gemm f32 4096x4096x4096 NN a16 b16 beta0" "$out"
expect "1500.5 us" "$out"

# A slower measurement of a stored problem does not replace it; a faster one does.
sed -e 's/1500.5/1600/' "$dir/in.json" > "$dir/slower.json"
out=$("$cli" tune --db "$db" --import "$dir/slower.json")
expect "imported 0 of 2 entries" "$out"  # 1600 > 1500.5 and 27.25 = 27.25: the stored entries stay
sed -e 's/1500.5/1400/' -e 's/27.25/20/' "$dir/in.json" > "$dir/faster.json"
out=$("$cli" tune --db "$db" --import "$dir/faster.json")
expect "imported 2 of 2 entries" "$out"
out=$("$cli" tune --db "$db" --list)
expect "1400.0 us" "$out"

# Export, then import into a fresh database: the same listing.
"$cli" tune --db "$db" --export "$dir/out.json" >/dev/null
"$cli" tune --db "$dir/copy.sqlite3" --import "$dir/out.json" >/dev/null
diff <("$cli" tune --db "$db" --list | tail -n +2) <("$cli" tune --db "$dir/copy.sqlite3" --list | tail -n +2) \
  || fail "the re-imported export lists differently"

# A broken export: a named error, the database unchanged.
echo '{"format": "tilegemm tuning database export 1", "entries": [{"problem": "x"}]}' > "$dir/bad.json"
sed -e 's/gemv-rows:s1:k1/tiled:7x7x7/' "$dir/in.json" > "$dir/badconfig.json"
if "$cli" tune --db "$db" --import "$dir/badconfig.json" 2>"$dir/err"; then fail "an illegal config was imported"; fi
expect "is not a tilegemm tuning export" "$(cat "$dir/err")"
if "$cli" tune --db "$db" --import "$dir/bad.json" 2>"$dir/err"; then fail "a bad export was accepted"; fi
expect "--import: '$dir/bad.json' is not a tilegemm tuning export" "$(cat "$dir/err")"
out=$("$cli" tune --db "$db" --list)
expect "2 entries" "$out"

out=$("$cli" tune --db "$db" --clear)
expect "removed 2 entries" "$out"
out=$("$cli" tune --db "$db" --list)
expect "0 entries" "$out"

# Not a database: a named error, not a crash.
echo "not sqlite" > "$dir/garbage.sqlite3"
if "$cli" tune --db "$dir/garbage.sqlite3" --list 2>"$dir/err"; then fail "a garbage database was listed"; fi
expect "tuning database '$dir/garbage.sqlite3'" "$(cat "$dir/err")"
echo PASS
