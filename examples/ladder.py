"""Every ladder level and Auto on one product, checked against NumPy, with GFLOP/s next to
torch.matmul (FP32, no TF32) — the seed notebook's loop (build inputs, run, compare with NumPy),
through the tilegemm package.

    PYTHONPATH=build/python python3 examples/ladder.py [M N K]
"""
import sys

import numpy as np
import torch

import tilegemm


def gflops(fn, m, n, k, reps=20):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    seconds = start.elapsed_time(end) / 1e3 / reps
    return 2.0 * m * n * k / seconds / 1e9


def main():
    m, n, k = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (1024, 512, 2048)
    torch.backends.cuda.matmul.allow_tf32 = False
    rng = np.random.default_rng(0)
    a_host = rng.standard_normal((m, k), dtype=np.float32)
    b_host = rng.standard_normal((k, n), dtype=np.float32)
    expected = a_host.astype(np.float64) @ b_host.astype(np.float64)
    a, b = torch.from_numpy(a_host).cuda(), torch.from_numpy(b_host).cuda()
    print(f"{tilegemm.device_info()['name']}: C[{m}x{n}] = A[{m}x{k}] @ B[{k}x{n}], FP32")
    print(f"{'kernel':<18} {'GFLOP/s':>10} {'max |error|':>12}")
    for kernel in [1, 2, 3, 4, 5, 6, "auto"]:
        c = tilegemm.matmul(a, b, kernel=kernel)
        error = np.abs(c.cpu().numpy() - expected).max()
        rate = gflops(lambda: tilegemm.matmul(a, b, kernel=kernel), m, n, k)
        name = "auto" if kernel == "auto" else tilegemm.ladder_levels()[kernel - 1]
        print(f"{name:<18} {rate:>10.0f} {error:>12.2e}")
    c = torch.matmul(a, b)
    error = np.abs(c.cpu().numpy() - expected).max()
    print(f"{'torch.matmul':<18} {gflops(lambda: torch.matmul(a, b), m, n, k):>10.0f} {error:>12.2e}")


if __name__ == "__main__":
    main()
