"""Benchmarks of the Python package on torch tensors (docs/python.md), FP32, TF32 off:

  overhead   host time per call of back-to-back tiny products: tilegemm.matmul vs torch.matmul
  models     the `models` preset through tilegemm.matmul vs torch.matmul (cuBLAS), cold L2
  bsr        the transformer-sparse layers: tilegemm.bsr_linear / bsr_mm on torch BSR tensors vs
             PyTorch's Triton BSR kernel (torch.sparse._triton_ops.bsr_dense_mm), cold L2
  layers     bf16 linear layers with bias and activation under autograd, forward and forward +
             backward: tilegemm.matmul(bias=, activation=) (tilegemm::mm_epilogue) vs
             torch.nn.functional.linear + the activation, and vs the product followed by the bias and
             activation as torch operations in FP32 (the unfused form), cold L2

Timing as `tilegemm bench` does it (docs/benchmarking.md): every run starts with a kernel that reads
a buffer of twice the L2 size, the run is bracketed by its own CUDA events, the median is reported.

    PYTHONPATH=build/python python3 python/bench/bench_python.py overhead|models|bsr|layers [--csv FILE]
"""
import argparse
import csv
import math
import statistics
import sys
import time

import torch

import tilegemm

MODELS = [  # (name, m, n, k, trans) as in `tilegemm bench --preset models`
    ("llama3-8b mlp up", 4096, 14336, 4096, "NN"), ("llama3-8b mlp down", 4096, 4096, 14336, "NN"),
    ("llama3-8b qkv", 4096, 6144, 4096, "NN"), ("decode mlp up", 1, 14336, 4096, "NN"),
    ("decode mlp down", 1, 4096, 14336, "NN"), ("decode qkv x8", 8, 6144, 4096, "NN"),
    ("gpt2 qkv", 1024, 2304, 768, "NN"), ("gpt2 mlp down", 1024, 768, 3072, "NN"),
    ("bert-large ffn up", 4096, 4096, 1024, "NN"), ("bert-large ffn down", 4096, 1024, 4096, "NN"),
    ("resnet50 conv3", 25088, 128, 1152, "NN"), ("resnet50 conv4", 6272, 512, 4608, "NN"),
    ("wgrad 512", 512, 512, 65536, "NN"), ("wgrad 256x1024", 256, 1024, 131072, "NN"),
    ("tall", 65536, 64, 64, "NN"), ("gemv n=1", 4096, 1, 14336, "NN"),
    ("odd NT", 2501, 3499, 1777, "NT"), ("odd TT", 2501, 3499, 1777, "TT"),
]


class ColdTimer:
    """Median of per-run CUDA-event times, each run after an L2 flush by a read kernel."""

    def __init__(self, min_reps=10, min_seconds=0.3, max_reps=200):
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush = torch.ones(2 * l2 // 4, device="cuda")
        self.min_reps, self.min_seconds, self.max_reps = min_reps, min_seconds, max_reps

    def __call__(self, fn):
        fn()  # warm-up (and the first call's one-time work)
        torch.cuda.synchronize()
        times = []
        begin = time.perf_counter()
        while len(times) < self.max_reps and (len(times) < self.min_reps or
                                              time.perf_counter() - begin < self.min_seconds):
            self.flush.sum()  # reads 2x L2: the run starts cold, with only clean lines
            # ~100 us of GPU time ahead of the start event, so the host's launch work for fn is
            # hidden (the events then bracket GPU time only, as for the command's contenders).
            torch.cuda._sleep(200_000)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)


def operand(rows, cols, transposed):
    """A rows x cols operand, stored transposed (a column-major view) when asked."""
    if transposed:
        return torch.randn(cols, rows, device="cuda").t()
    return torch.randn(rows, cols, device="cuda")


def bench_overhead(args):
    rows = []
    for size in (16, 64):
        a = torch.randn(size, size, device="cuda")
        b = torch.randn(size, size, device="cuda")
        c = torch.empty(size, size, device="cuda")
        stream = torch.cuda.current_stream().cuda_stream
        pa, pb, pc = a.data_ptr(), b.data_ptr(), c.data_ptr()
        contenders = {
            # the extension's entry point on precomputed addresses: the C++ library's share
            "_tilegemm.sgemm(addresses)": lambda: tilegemm._tilegemm.sgemm(
                False, False, size, size, size, 1.0, pa, size, pb, size, 0.0, pc, size, stream, 0, "auto", ""),
            "torch.matmul(a, b)": lambda: torch.matmul(a, b),
            "tilegemm.matmul(a, b)": lambda: tilegemm.matmul(a, b),
            "torch.matmul(a, b, out=c)": lambda: torch.matmul(a, b, out=c),
            "tilegemm.matmul(a, b, out=c)": lambda: tilegemm.matmul(a, b, out=c),
        }
        calls = 20000
        for name, fn in contenders.items():
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
            best = math.inf
            for _ in range(5):  # the best of five rounds: host noise only adds time
                begin = time.perf_counter()
                for _ in range(calls):
                    fn()
                torch.cuda.synchronize()
                best = min(best, (time.perf_counter() - begin) / calls * 1e6)
            rows.append({"shape": f"{size}x{size}x{size}", "call": name, "us_per_call": round(best, 2)})
    print(f"{'shape':<10} {'call':<32} {'us/call':>8}")
    for r in rows:
        print(f"{r['shape']:<10} {r['call']:<32} {r['us_per_call']:>8.2f}")
    for size in ("16x16x16", "64x64x64"):
        by = {r["call"]: r["us_per_call"] for r in rows if r["shape"] == size}
        print(f"{size}: tilegemm/torch = {by['tilegemm.matmul(a, b)'] / by['torch.matmul(a, b)']:.2f} (new C), "
              f"{by['tilegemm.matmul(a, b, out=c)'] / by['torch.matmul(a, b, out=c)']:.2f} (out=)")
    return rows


def bench_models(args):
    timer = ColdTimer()
    rows = []
    print(f"{'shape':<24} {'M x N x K':>20} {'op':>3} {'tilegemm ms':>12} {'torch ms':>10} {'ratio':>6} {'TFLOP/s':>8}")
    for name, m, n, k, trans in MODELS:
        a = operand(m, k, trans[0] == "T")
        b = operand(k, n, trans[1] == "T")
        c = torch.empty(m, n, device="cuda")
        assert torch.allclose(tilegemm.matmul(a, b), torch.matmul(a, b), rtol=1e-3, atol=1e-2 * math.sqrt(k))
        t_ours = timer(lambda: tilegemm.matmul(a, b, out=c))
        t_torch = timer(lambda: torch.matmul(a, b, out=c))
        tflops = 2.0 * m * n * k / (t_ours * 1e-3) / 1e12
        rows.append({"shape": name, "m": m, "n": n, "k": k, "trans": trans, "tilegemm_ms": t_ours,
                     "torch_ms": t_torch, "ratio": t_torch / t_ours, "tflops": tflops})
        print(f"{name:<24} {f'{m}x{n}x{k}':>20} {trans:>3} {t_ours:>12.4f} {t_torch:>10.4f} "
              f"{t_torch / t_ours:>6.3f} {tflops:>8.2f}")
    geo = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    print(f"geometric mean tilegemm vs torch.matmul: {geo:.3f}")
    return rows


LAYERS = [  # (name, tokens, out features, in features, activation), bf16 x @ w^T + bias
    ("llama3-8b mlp up + silu", 4096, 14336, 4096, "silu"), ("qkv + bias", 4096, 6144, 4096, None),
    ("bert-large ffn up + gelu", 4096, 4096, 1024, "gelu"), ("gpt2 mlp up + gelu-tanh", 1024, 3072, 768, "gelu-tanh"),
    ("mlp + relu", 4096, 4096, 4096, "relu"), ("gpt2 mlp up + relu", 1024, 3072, 768, "relu"),
]


def torch_activation(y, activation):
    """The activation as torch's function (matmul's activation= names)."""
    return tilegemm._matmul.torch_activation(torch, y, tilegemm._matmul.activation_name(activation))


def bench_layers(args):
    timer = ColdTimer()
    rows = []
    print(f"{'layer':<26} {'pass':<8} {'tilegemm ms':>12} {'unfused ms':>11} {'torch ms':>9} {'vs torch':>9} "
          f"{'vs unfused':>10}")
    for name, t, n, k, act in LAYERS:
        gen = torch.Generator(device="cuda").manual_seed(5)
        x = torch.randn(t, k, device="cuda", generator=gen).bfloat16().requires_grad_()
        w = (torch.randn(n, k, device="cuda", generator=gen) / k ** 0.5).bfloat16().requires_grad_()
        bias = torch.randn(n, device="cuda", generator=gen).bfloat16().requires_grad_()
        grad = torch.randn(t, n, device="cuda", generator=gen).bfloat16()
        forms = {
            "tilegemm": lambda: tilegemm.matmul(x, w.t(), bias=bias, activation=act),
            # the product on tilegemm, the bias and activation as torch operations in FP32
            "unfused": lambda: torch_activation(tilegemm.matmul(x, w.t()).float() + bias.float(), act).bfloat16(),
            "torch": lambda: torch_activation(torch.nn.functional.linear(x, w, bias), act),
        }
        want = forms["torch"]().double()
        got = forms["tilegemm"]().double()
        assert (got - want).abs().max().item() <= 0.05 * want.abs().max().item() + 0.05, name
        for what in ("forward", "fwd+bwd"):
            ms = {}
            for form, f in forms.items():
                if what == "forward":
                    ms[form] = timer(f)
                else:
                    ms[form] = timer(lambda: torch.autograd.grad(f(), (x, w, bias), grad))
            rows.append({"layer": name, "tokens": t, "out": n, "in": k, "activation": act or "none", "pass": what,
                         "tilegemm_ms": ms["tilegemm"], "unfused_ms": ms["unfused"], "torch_ms": ms["torch"],
                         "vs_torch": ms["torch"] / ms["tilegemm"], "vs_unfused": ms["unfused"] / ms["tilegemm"]})
            r = rows[-1]
            print(f"{name:<26} {what:<8} {r['tilegemm_ms']:>12.4f} {r['unfused_ms']:>11.4f} {r['torch_ms']:>9.4f} "
                  f"{r['vs_torch']:>9.3f} {r['vs_unfused']:>10.3f}")
    for what in ("forward", "fwd+bwd"):
        sel = [r for r in rows if r["pass"] == what]
        geo = math.exp(sum(math.log(r["vs_torch"]) for r in sel) / len(sel))
        geo_u = math.exp(sum(math.log(r["vs_unfused"]) for r in sel) / len(sel))
        print(f"geometric mean, {what}: tilegemm vs torch {geo:.3f}, vs unfused {geo_u:.3f}")
    return rows


def random_bsr(rows, cols, block, sparsity, skewed, gen):
    """A torch BSR tensor (int64 indices, torch's default) with `sparsity` of its blocks empty;
    skewed: block-row lengths follow a Zipf-like law (weights 1 / (i + 1)), shuffled."""
    brows, bcols = rows // block, cols // block
    keep = max(1, round((1 - sparsity) * brows * bcols))
    if skewed:
        weights = 1.0 / torch.arange(1, brows + 1, dtype=torch.float64)
        weights = weights[torch.randperm(brows, generator=gen)]
        per_row = torch.clamp(torch.round(weights / weights.sum() * keep), max=bcols).long()
    else:
        per_row = torch.full((brows,), keep // brows, dtype=torch.long)
        per_row[torch.randperm(brows, generator=gen)[: keep - int(per_row.sum())]] += 1
    mask = torch.zeros(brows, bcols, dtype=torch.bool)
    for i in range(brows):
        mask[i, torch.randperm(bcols, generator=gen)[: int(per_row[i])]] = True
    crow = torch.zeros(brows + 1, dtype=torch.long)
    crow[1:] = torch.cumsum(mask.sum(1), 0)
    col = mask.nonzero()[:, 1].contiguous()
    values = torch.randn(int(crow[-1]), block, block, generator=gen)
    return torch.sparse_bsr_tensor(crow, col, values, (rows, cols)).cuda()


def bench_bsr(args):
    from torch.sparse._triton_ops import bsr_dense_mm

    timer = ColdTimer(min_reps=5, min_seconds=0.1)
    gen = torch.Generator().manual_seed(0)
    rows = []
    layers = [(4096, 768, 3072), (4096, 4096, 4096), (8192, 8192, 8192)]  # (m tokens, k, n)
    print(f"{'op':<6} {'m x k x n':>16} {'block':>5} {'sparsity':>8} {'rows':>7} {'tilegemm ms':>12} "
          f"{'triton ms':>10} {'speedup':>8}")
    for m, k, n in layers:
        x = torch.randn(m, k, device="cuda")
        for block in (16, 32, 64):
            for sparsity in (0.8, 0.9, 0.95, 0.99):
                for skewed in (False, True):
                    w = random_bsr(n, k, block, sparsity, skewed, gen)  # the weight: n x k
                    tilegemm.bsr_linear(x, w)  # prepares (and caches) the tilegemm view once
                    dense = w.to_dense()
                    for op in ("xwt", "wx"):
                        if op == "xwt":  # Y = X W^T (m x n); torch: (W X^T)^T
                            ours = lambda: tilegemm.bsr_linear(x, w)
                            theirs = lambda: bsr_dense_mm(w, x.t())
                            want = x @ dense.t()
                            got_t = bsr_dense_mm(w, x.t()).t()
                        else:  # Y = W X with X k x m (the dense batch is m columns)
                            xt = x.t().contiguous()
                            ours = lambda: tilegemm.bsr_mm(w, xt)
                            theirs = lambda: bsr_dense_mm(w, xt)
                            want = dense @ xt
                            got_t = bsr_dense_mm(w, xt)
                        scale = want.abs().max().item()
                        ok_ours = (ours() - want).abs().max().item() <= 1e-3 * scale
                        ok_theirs = (got_t - want).abs().max().item() <= 1e-3 * scale
                        t_ours, t_theirs = timer(ours), timer(theirs)
                        r = {"op": op, "m": m, "k": k, "n": n, "block": block, "sparsity": sparsity,
                             "rows": "skewed" if skewed else "uniform", "tilegemm_ms": t_ours,
                             "triton_ms": t_theirs, "speedup": t_theirs / t_ours,
                             "verified": ok_ours and ok_theirs}
                        rows.append(r)
                        print(f"{op:<6} {f'{m}x{k}x{n}':>16} {block:>5} {sparsity:>8} {r['rows']:>7} "
                              f"{t_ours:>12.4f} {t_theirs:>10.4f} {r['speedup']:>8.2f}"
                              f"{'' if r['verified'] else '  MISMATCH'}")
                    del w, dense
    geo = math.exp(sum(math.log(r["speedup"]) for r in rows) / len(rows))
    print(f"cells {len(rows)}, geometric mean speedup over Triton {geo:.2f}, "
          f"min {min(r['speedup'] for r in rows):.2f}, max {max(r['speedup'] for r in rows):.2f}")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["overhead", "models", "bsr", "layers"])
    p.add_argument("--csv", help="write the rows to this CSV file")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, tilegemm {tilegemm.__version__}")
    rows = {"overhead": bench_overhead, "models": bench_models, "bsr": bench_bsr,
            "layers": bench_layers}[args.what](args)
    if args.csv and rows:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
