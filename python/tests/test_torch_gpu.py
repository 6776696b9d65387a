"""tilegemm on torch tensors, against torch.matmul in float64: shapes, strided and transposed views,
out/beta, batches, every kernel, streams, errors, torch.compile and CUDA graphs."""
import math
import random

import pytest

import tilegemm
from conftest import on_split_tensor_cores, torch_at_highest_precision

torch = None


@pytest.fixture(autouse=True)
def _torch():
    # matmul's default math follows torch's float32 matmul precision: "highest" (torch's default:
    # FFMA) unless a test sets another.
    global torch
    with torch_at_highest_precision() as torch:
        yield


def reference(a, b, alpha=1.0, beta=0.0, c=None):
    r = alpha * (a.double() @ b.double())
    if beta != 0:
        r = r + beta * c.double()
    return r


def assert_close(got, want, k):
    # FP32 accumulation over k terms (the library's own bound, ref::fp32_gemm_error_bound).
    bound = 4 * 1.2e-7 * (k + 2)
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    assert err <= bound * max(scale, 1.0) * 4, f"max error {err}, bound {bound * max(scale, 1.0) * 4}"


def view(rows, cols, how, gen):
    """A rows x cols float32 view: 'c' contiguous, 't' a transposed view, 'pad' padded rows,
    'off' offset by one element (unaligned), 'tpad' transposed and padded."""
    dev = "cuda"
    if how == "c":
        return torch.randn(rows, cols, device=dev, generator=gen)
    if how == "t":
        return torch.randn(cols, rows, device=dev, generator=gen).t()
    if how == "pad":
        return torch.randn(rows, cols + 7, device=dev, generator=gen)[:, :cols]
    if how == "off":
        return torch.randn(rows * cols + 1, device=dev, generator=gen)[1:].view(rows, cols)
    if how == "tpad":
        return torch.randn(cols, rows + 5, device=dev, generator=gen)[:, :rows].t()
    raise ValueError(how)


SHAPES = [(1, 1, 1), (0, 5, 3), (5, 0, 3), (5, 3, 0), (1, 4096, 512), (512, 1, 700), (16, 2048, 1024),
          (127, 131, 137), (1000, 1000, 1000), (64, 64, 8192), (300, 257, 64)]
LAYOUTS = ["c", "t", "pad", "off", "tpad"]


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", ["c", "t", "off"])
@pytest.mark.parametrize("precision", ["highest", "high"])  # FFMA only; FFMA or 3xTF32
def test_matmul_shapes_and_views(m, n, k, la, lb, precision):
    torch.set_float32_matmul_precision(precision)
    gen = torch.Generator(device="cuda").manual_seed(m * 131 + n * 7 + k)
    a, b = view(m, k, la, gen), view(k, n, lb, gen)
    c = tilegemm.matmul(a, b)
    assert isinstance(c, torch.Tensor) and c.shape == (m, n) and c.device == a.device
    assert_close(c, reference(a, b), k)


@pytest.mark.parametrize("lc", ["c", "t", "pad", "off"])
def test_out_and_beta(lc):
    gen = torch.Generator(device="cuda").manual_seed(3)
    m, n, k = 129, 65, 257
    a, b = view(m, k, "c", gen), view(k, n, "t", gen)
    c = view(m, n, lc, gen)
    c0 = c.clone()
    got = tilegemm.matmul(a, b, out=c, alpha=-0.5, beta=0.25)
    assert got is c
    assert_close(c, reference(a, b, -0.5, 0.25, c0), k)
    # beta == 0 never reads out: NaN there does not leak
    c.fill_(float("nan"))
    tilegemm.matmul(a, b, out=c, beta=0.0)
    assert not torch.isnan(c).any()
    assert_close(c, reference(a, b), k)


def test_out_padding_untouched():
    m, n, k = 33, 17, 40
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    big = torch.full((m, n + 3), 7.0, device="cuda")
    tilegemm.matmul(a, b, out=big[:, :n])
    assert torch.all(big[:, n:] == 7.0)
    assert_close(big[:, :n], reference(a, b), k)


@pytest.mark.parametrize("kernel", ["auto", 1, 2, 3, 4, 5, 6, 7, "06-warp-tiled"])
def test_every_kernel(kernel):
    a = torch.randn(257, 300, device="cuda")
    b = torch.randn(300, 129, device="cuda").t().contiguous().t()
    assert_close(tilegemm.matmul(a, b, kernel=kernel), reference(a, b), 300)


def test_named_config_and_explain_choice():
    a = torch.randn(1000, 1000, device="cuda")
    b = torch.randn(1000, 1000, device="cuda")
    choice = tilegemm.explain_choice(a, b)
    assert choice["config"] and choice["kind"] in ("gemv", "split-k", "stream-k", "small-tile", "big-tile")
    c = tilegemm.matmul(a, b, config=choice["config"])
    assert_close(c, reference(a, b), 1000)
    with pytest.raises(ValueError, match="config"):
        tilegemm.matmul(a, b, config="tiled:not-a-config")


def test_math_ffma_keeps_auto_on_cuda_cores():
    # 1000^3 runs 3xTF32 on tensor cores under math "fp32" (level 7, or level 8 on Hopper;
    # docs/shapes.md), FFMA under "ffma".
    a = torch.randn(1000, 1000, device="cuda")
    b = torch.randn(1000, 1000, device="cuda")
    assert on_split_tensor_cores(tilegemm.explain_choice(a, b, math="fp32")["config"])
    ffma = tilegemm.explain_choice(a, b, math="ffma")["config"]
    assert ffma.startswith("tiled:") and not on_split_tensor_cores(ffma)
    assert_close(tilegemm.matmul(a, b, math="ffma"), reference(a, b), 1000)
    compiled = torch.compile(lambda x, y: tilegemm.matmul(x, y, math="ffma"), fullgraph=True)
    assert_close(compiled(a, b), reference(a, b), 1000)


@pytest.mark.parametrize("ba, bb", [(3, 3), (3, 0), (0, 4), (1, 5)])
def test_batched_and_broadcast(ba, bb):
    m, n, k = 37, 29, 41
    a = torch.randn(ba, m, k, device="cuda") if ba else torch.randn(m, k, device="cuda")
    b = torch.randn(bb, k, n, device="cuda") if bb else torch.randn(k, n, device="cuda")
    c = tilegemm.matmul(a, b)
    want = torch.matmul(a.double(), b.double())
    assert c.shape == want.shape
    assert_close(c, want, k)


def test_empty_batch_broadcasts_to_empty():
    # A batch of 0 against a 2-D operand (a batch of 1) is 0 products, as torch.matmul's.
    a = torch.randn(0, 5, 3, device="cuda")
    b = torch.randn(3, 4, device="cuda")
    assert tilegemm.matmul(a, b).shape == torch.matmul(a, b).shape == (0, 5, 4)
    assert tilegemm.matmul(b.t(), a.transpose(1, 2)).shape == (0, 4, 5)


def test_batched_transposed_views():
    a = torch.randn(4, 50, 30, device="cuda").transpose(1, 2)  # 4 x 30 x 50, each Op.T
    b = torch.randn(4, 50, 20, device="cuda")[:, :, :17]  # padded
    assert_close(tilegemm.matmul(a, b), torch.matmul(a.double(), b.double()), 50)


def test_random_shapes_and_strides():
    rng = random.Random(11)
    gen = torch.Generator(device="cuda").manual_seed(11)
    for _ in range(40):
        m, n, k = (rng.choice([1, 2, 3, 7, 16, 31, 64, 100, 255, 513]) for _ in range(3))
        a = view(m, k, rng.choice(LAYOUTS), gen)
        b = view(k, n, rng.choice(LAYOUTS), gen)
        c = view(m, n, rng.choice(["c", "t", "pad"]), gen)
        alpha, beta = rng.choice([1.0, -2.0, 0.5]), rng.choice([0.0, 1.0, -0.5])
        c0 = c.clone()
        tilegemm.matmul(a, b, out=c, alpha=alpha, beta=beta)
        assert_close(c, reference(a, b, alpha, beta, c0), k)


def test_streams():
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    want = reference(a, b)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # torch's current stream
        c = tilegemm.matmul(a, b)
    s.synchronize()
    assert_close(c, want, 2048)
    s2 = torch.cuda.Stream()
    s2.wait_stream(torch.cuda.current_stream())
    out = torch.empty(2048, 2048, device="cuda")
    tilegemm.matmul(a, b, out=out, stream=s2)  # an explicit stream
    s2.synchronize()
    assert_close(out, want, 2048)


def test_argument_errors():
    a = torch.randn(8, 8, device="cuda")
    with pytest.raises(TypeError, match=r"^b: a tensor on 'cpu'"):
        tilegemm.matmul(a, torch.randn(8, 8))
    with pytest.raises(TypeError, match=r"^b: dtype torch.float64"):
        tilegemm.matmul(a, a.double())
    with pytest.raises(ValueError, match=r"^a: strides"):
        tilegemm.matmul(torch.randn(8, 1, device="cuda").expand(8, 8), a)
    with pytest.raises(ValueError, match=r"^b: shape"):
        tilegemm.matmul(a, torch.randn(7, 8, device="cuda"))
    with pytest.raises(TypeError, match=r"^a: a torch.sparse_csr"):
        tilegemm.matmul(a.to_sparse_csr(), a)
    out = torch.full((8, 8), 3.0, device="cuda")
    with pytest.raises(ValueError):  # C overlapping A: the library's check, before any launch
        tilegemm.matmul(out, a, out=out)
    assert torch.all(out == 3.0)
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match=r"^b: on CUDA device 1"):
            tilegemm.matmul(a, torch.randn(8, 8, device="cuda:1"))


def test_second_device_runs_there():
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device")
    a = torch.randn(64, 64, device="cuda:1")
    assert_close(tilegemm.matmul(a, a), reference(a, a), 64)


def test_torch_compile():
    def f(a, b, c):
        return tilegemm.matmul(a, b) * 2 + tilegemm.matmul(a, b, out=c, beta=1.0)

    compiled = torch.compile(f, fullgraph=True)
    a = torch.randn(96, 80, device="cuda")
    b = torch.randn(80, 72, device="cuda")
    c = torch.randn(96, 72, device="cuda")
    want = 2 * reference(a, b) + reference(a, b, 1.0, 1.0, c)
    got = compiled(a, b, c.clone())
    assert_close(got, want, 80)


def test_cuda_graph_capture():
    a = torch.randn(300, 200, device="cuda")
    b = torch.randn(200, 100, device="cuda")
    c = torch.empty(300, 100, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up outside the capture
        tilegemm.matmul(a, b, out=c)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        tilegemm.matmul(a, b, out=c)
        d = tilegemm.matmul(a, b, alpha=2.0)
    a.copy_(torch.randn_like(a))
    g.replay()
    torch.cuda.synchronize()
    assert_close(c, reference(a, b), 200)
    assert_close(d, reference(a, b, 2.0), 200)


def test_split_k_is_deterministic():
    a = torch.randn(64, 64 * 1024, device="cuda")
    b = torch.randn(64 * 1024, 64, device="cuda")
    first = tilegemm.matmul(a, b)
    assert tilegemm.explain_choice(a, b)["kind"] in ("split-k", "stream-k", "gemv", "small-tile", "big-tile")
    for _ in range(3):
        assert torch.equal(tilegemm.matmul(a, b), first)
    assert_close(first, reference(a, b), 64 * 1024)
