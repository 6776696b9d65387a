#!/usr/bin/env bash
# Debian's python3-numpy (linked to the system BLAS) with the shim LD_PRELOADed: a float32 a @ b goes
# through the shim's cblas_sgemm (its log line shows the route) and gives numpy's float64 answer.
# Skips (77) when Debian's numpy is not installed.
set -uo pipefail
shim=$1
py=/usr/bin/python3
$py -c "import numpy" 2>/dev/null || { echo "Debian python3-numpy is not installed: skipping"; exit 77; }
out=$(LD_PRELOAD="$shim" TILEGEMM_BLAS_LOG=1 $py - 2>&1 <<'PY'
import numpy as np
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (300, 200)).astype(np.float32)
b = rng.uniform(-1, 1, (200, 100)).astype(np.float32)
err = np.abs((a @ b).astype(np.float64) - a.astype(np.float64) @ b.astype(np.float64)).max()
print("numpy", np.__version__, "float32 a @ b max error", err)
assert err < 1e-4
PY
)
rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
grep -q "tilegemm_blas: cblas_sgemm .*300" <<<"$out" || { echo "a @ b did not go through the shim"; exit 1; }
