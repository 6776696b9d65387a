"""Autograd through tilegemm.matmul (its backward runs on tilegemm) against torch's own gradients in
float64, finite differences, torch.compile, out= refused, the fused bias and activation; the precision mapping
(torch.get_float32_matmul_precision -> math) on every path; special values through the door."""
import math

import pytest

import tilegemm
from conftest import on_split_tensor_cores, on_tensor_cores, torch_at_highest_precision

torch = None


@pytest.fixture(autouse=True)
def _torch():
    global torch
    with torch_at_highest_precision() as torch:
        yield


def assert_close(got, want, k, math="fp32"):
    # FP32 accumulation over k terms, as test_torch_gpu.py; under math "tf32" each product also
    # carries both operands cut to 10-bit mantissas (2^-9 of it, truncated).
    bound = 4 * 1.2e-7 * (k + 2) + (2.0 ** -9 * (k + 2) / 4 if math == "tf32" else 0.0)
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    assert err <= bound * max(scale, 1.0) * 4, f"max error {err}, bound {bound * max(scale, 1.0) * 4}"


def uniform(*shape, gen=None):
    return torch.rand(*shape, device="cuda", generator=gen) * 2 - 1


def leaf(shape, how="c", gen=None):
    """A float32 CUDA tensor in [-1, 1] requiring grad: 'c' contiguous, 't' each matrix a
    transposed view (Op.T in the library)."""
    if how == "t":
        x = uniform(*shape[:-2], shape[-1], shape[-2], gen=gen).transpose(-1, -2)
    else:
        x = uniform(*shape, gen=gen)
    return x.requires_grad_()


def reference_grads(a, b, alpha, grad):
    """torch's gradients of alpha * a @ b in float64 (None where no grad is required)."""
    ad = a.detach().double().requires_grad_(a.requires_grad)
    bd = b.detach().double().requires_grad_(b.requires_grad)
    (alpha * torch.matmul(ad, bd)).backward(grad.double())
    return ad.grad, bd.grad


def check_grads(a, b, y, grad, alpha, math="fp32"):
    """a.grad and b.grad against float64 references; a broadcast operand's gradient sums over the
    batch, so K counts the batch. `math` "tf32": TF32's bound (the gradients may run TF32)."""
    batch = y.shape[0] if y.dim() == 3 else 1
    want_a, want_b = reference_grads(a, b, alpha, grad)
    for got, want, k in ((a.grad, want_a, b.shape[-1] * batch), (b.grad, want_b, a.shape[-2] * batch)):
        if want is None:
            assert got is None
            continue
        assert got is not None and got.shape == want.shape and got.dtype == torch.float32
        assert_close(got, want, k, math)


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (7, 13, 17), (300, 257, 64)])
@pytest.mark.parametrize("la", ["c", "t"])
@pytest.mark.parametrize("lb", ["c", "t"])
@pytest.mark.parametrize("alpha", [1.0, -0.75])
def test_grad_2d(m, n, k, la, lb, alpha):
    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n + k)
    a, b = leaf((m, k), la, gen), leaf((k, n), lb, gen)
    y = tilegemm.matmul(a, b, alpha=alpha)
    assert y.grad_fn is not None and y.requires_grad
    grad = uniform(m, n, gen=gen)
    y.backward(grad)
    check_grads(a, b, y, grad, alpha)


BATCHES = {  # name: (a's shape, a's layout, b's shape, b's layout); m, k, n = 37, 41, 29
    "3d": ((5, 37, 41), "c", (5, 41, 29), "c"),
    "3d views": ((5, 37, 41), "t", (5, 41, 29), "t"),
    "b 2-d": ((5, 37, 41), "c", (41, 29), "c"),  # b's gradient: one product, the batch folded into K
    "b 2-d, a views": ((5, 37, 41), "t", (41, 29), "t"),  # no fold: the batch's products summed
    "a 2-d": ((37, 41), "c", (5, 41, 29), "c"),
    "a batch of 1": ((1, 37, 41), "c", (5, 41, 29), "t"),
    "b batch of 1": ((5, 37, 41), "c", (1, 41, 29), "c"),
    "empty batch": ((0, 37, 41), "c", (41, 29), "c"),
}


@pytest.mark.parametrize("case", list(BATCHES))
@pytest.mark.parametrize("loss", ["grad", "sum"])  # "sum": an expanded (stride-0) incoming gradient
def test_grad_batched_and_broadcast(case, loss):
    sa, la, sb, lb = BATCHES[case]
    gen = torch.Generator(device="cuda").manual_seed(len(case))
    a, b = leaf(sa, la, gen), leaf(sb, lb, gen)
    y = tilegemm.matmul(a, b, alpha=0.5)
    assert y.shape == torch.matmul(a.detach(), b.detach()).shape and y.grad_fn is not None
    if loss == "sum":
        y.sum().backward()
        grad = torch.ones_like(y)
    else:
        grad = uniform(*y.shape, gen=gen)
        y.backward(grad)
    check_grads(a, b, y, grad, 0.5)


def test_only_the_needed_gradients():
    x = uniform(64, 32)
    w = leaf((32, 16))
    y = tilegemm.matmul(x, w)
    y.sum().backward()
    assert x.grad is None
    check_grads(x, w, y, torch.ones_like(y), 1.0)
    x.requires_grad_()
    w.requires_grad_(False)
    w.grad = None
    y = tilegemm.matmul(x, w)
    y.sum().backward()
    assert w.grad is None
    check_grads(x, w, y, torch.ones_like(y), 1.0)
    with torch.no_grad():  # the direct path: no graph
        assert tilegemm.matmul(x, w).grad_fn is None


def test_finite_differences():
    # gradcheck is for float64; tilegemm is FP32: central differences in float32 on a small product
    # of a bilinear function (exact up to rounding), against tilegemm's own gradient.
    gen = torch.Generator(device="cuda").manual_seed(5)
    a, b = leaf((4, 5), gen=gen), leaf((5, 3), "t", gen=gen)
    weights = uniform(4, 3, gen=gen)

    def loss(x, y):
        return (tilegemm.matmul(x, y, alpha=1.5) * weights).sum()

    loss(a, b).backward()
    eps = 1e-2
    for x, analytic in ((a, a.grad), (b, b.grad)):
        numeric = torch.empty_like(analytic)
        with torch.no_grad():
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    keep = x[i, j].item()
                    x[i, j] = keep + eps
                    up = loss(a, b).item()
                    x[i, j] = keep - eps
                    down = loss(a, b).item()
                    x[i, j] = keep
                    numeric[i, j] = (up - down) / (2 * eps)
        torch.testing.assert_close(analytic, numeric, rtol=1e-2, atol=1e-2 * analytic.abs().max().item())


@pytest.mark.parametrize("case", ["2d", "linear"])
def test_backward_under_torch_compile(case):
    gen = torch.Generator(device="cuda").manual_seed(9)
    if case == "2d":
        a, b = leaf((96, 80), gen=gen), leaf((80, 72), "t", gen=gen)
        k = 96  # the longer of the two gradients' sums (72 and 96 terms)

        def f(x, y):
            return tilegemm.matmul(x, y, alpha=0.5)
    else:  # a linear layer: x[B, T, k] @ w[n, k]^T, w.t() broadcast over the batch
        a, b = leaf((4, 33, 80), gen=gen), leaf((48, 80), gen=gen)
        k = 4 * 33  # w's gradient sums over the batch's 4 * 33 rows

        def f(x, w):
            return tilegemm.matmul(x, w.t(), alpha=0.5)

    grad = uniform(*f(a.detach(), b.detach()).shape, gen=gen)
    f(a, b).backward(grad)
    eager = [a.grad, b.grad]
    want = [t.double() for t in eager]
    a.grad = b.grad = None
    torch._dynamo.reset()
    y = torch.compile(f)(a, b)
    assert y.grad_fn is not None
    y.backward(grad)
    for got, ref in zip((a.grad, b.grad), want):
        assert got.shape == ref.shape
        assert_close(got, ref, k)
    # and both against torch in float64
    ad, bd = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    (0.5 * torch.matmul(ad, bd if case == "2d" else bd.t())).backward(grad.double())
    assert_close(eager[0], ad.grad, k)
    assert_close(eager[1], bd.grad, k)


def test_out_with_requires_grad_raises():
    x = leaf((16, 8))
    w = uniform(8, 4)
    out = torch.empty(16, 4, device="cuda")
    with pytest.raises(RuntimeError, match=r"^out: products with out= don't support automatic differentiation, "
                                           r"but a requires grad"):
        tilegemm.matmul(x, w, out=out)
    compiled = torch.compile(lambda p, q, o: tilegemm.matmul(p, q, out=o))
    with pytest.raises(RuntimeError, match=r"^out: .*a requires grad"):
        compiled(x, w, out)
    with pytest.raises(RuntimeError, match=r"^out: .*out requires grad"):
        tilegemm.matmul(x.detach(), w, out=torch.empty(16, 4, device="cuda", requires_grad=True))
    with torch.no_grad():  # what torch allows too: no graph to record
        assert tilegemm.matmul(x, w, out=out, beta=0.0) is out
    assert_close(out, x.detach().double() @ w.double(), 8)


def test_backward_keeps_kernel_and_math_but_not_config(monkeypatch):
    from tilegemm import _torch_ops as ops  # the eager forward and backward call its _run

    calls = []
    real = ops._run

    def spy(a, b, alpha, kernel_name, config, math):
        calls.append((tuple(a.shape), tuple(b.shape), kernel_name, config, math))
        return real(a, b, alpha, kernel_name, config, math)

    monkeypatch.setattr(ops, "_run", spy)
    torch.set_float32_matmul_precision("high")
    x, w = leaf((300, 100)), leaf((100, 200))
    config = tilegemm.explain_choice(x, w)["config"]
    y = tilegemm.matmul(x, w, config=config)
    y.sum().backward()
    assert calls[0] == ((300, 100), (100, 200), "auto", config, "tf32")
    assert sorted(calls[1:]) == [((100, 300), (300, 200), "auto", "", "tf32"),
                                 ((300, 200), (200, 100), "auto", "", "tf32")]
    check_grads(x, w, y, torch.ones_like(y), 1.0, "tf32")  # "high": the gradients may run TF32
    calls.clear()
    x.grad = w.grad = None
    y = tilegemm.matmul(x, w, kernel=6, math="ffma")  # a ladder level and an explicit math carry on
    y.sum().backward()
    assert {c[2:] for c in calls} == {("6", "", "ffma")} and len(calls) == 3
    check_grads(x, w, y, torch.ones_like(y), 1.0)


def test_autograd_on_a_given_stream():
    x, w = leaf((128, 64)), leaf((64, 32))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    y = tilegemm.matmul(x, w, stream=s)
    torch.cuda.current_stream().wait_stream(s)
    y.sum().backward()
    torch.cuda.synchronize()
    assert_close(y.detach(), x.detach().double() @ w.detach().double(), 64)
    check_grads(x, w, y, torch.ones_like(y), 1.0)


# --- the fused epilogue under autograd -------------------------------------------------------

F64_ACTIVATIONS = {None: lambda z: z, "relu": lambda z: z.clamp(min=0),
                   "gelu": lambda z: torch.nn.functional.gelu(z),
                   "gelu-tanh": lambda z: torch.nn.functional.gelu(z, approximate="tanh"),
                   "silu": lambda z: torch.nn.functional.silu(z)}


def fused_reference(x, w, bias, activation, grad):
    """activation(x @ w^T + bias) and its gradients in float64 (torch's own autograd)."""
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, bias))
    y = F64_ACTIVATIONS[activation](xd @ wd.t() + bd)
    y.backward(grad.double())
    return y.detach(), xd.grad, wd.grad, bd.grad


@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu-tanh", "silu"])
@pytest.mark.parametrize("dtype, bias_dtype", [("float32", "float32"), ("bfloat16", "bfloat16"),
                                               ("bfloat16", "float32")])
def test_fused_epilogue_under_autograd(activation, dtype, bias_dtype, monkeypatch):
    """A linear layer x[B, T, k] @ w^T + bias with an activation, recorded by autograd: the bias and
    ReLU run fused in the one library call of the forward (tilegemm::mm_epilogue), GELU and SiLU as
    torch's functions after it; the result and the gradients of x, w and bias against float64."""
    from tilegemm import _matmul

    calls = []
    real = _matmul._general

    def spy(a, b, out, alpha, beta, kernel, config, stream, math, bias=None, act="none"):
        calls.append((bias is not None, act))
        return real(a, b, out, alpha, beta, kernel, config, stream, math, bias, act)

    monkeypatch.setattr(_matmul, "_general", spy)
    dt, bdt = getattr(torch, dtype), getattr(torch, bias_dtype)
    gen = torch.Generator(device="cuda").manual_seed(31)
    x = uniform(3, 40, 96, gen=gen).to(dt).requires_grad_()
    w = uniform(72, 96, gen=gen).to(dt).requires_grad_()
    bias = uniform(72, gen=gen).to(bdt).requires_grad_()
    y = tilegemm.matmul(x, w.t(), bias=bias, activation=activation, math="fp32")
    assert y.dtype == dt and y.shape == (3, 40, 72) and y.grad_fn is not None
    fused = activation in (None, "relu")
    assert calls == [(True, {None: "none", "relu": "relu"}.get(activation, "none"))]
    if not fused:  # torch's activation on the fused product-plus-bias
        assert "Gelu" in y.grad_fn.name() or "Silu" in y.grad_fn.name(), y.grad_fn.name()
    grad = uniform(*y.shape, gen=gen).to(dt)
    y.backward(grad)
    want_y, want_x, want_w, want_bias = fused_reference(x, w, bias, activation, grad)
    assert x.grad.dtype == dt and w.grad.dtype == dt and bias.grad.dtype == bdt
    # FP32: accumulation over the sums' lengths; 16-bit: one rounding of every stored value (the
    # product, the gradient of z, each result) at bf16's 2^-8, a few times over.
    unit = 2.0 ** -8 if dtype == "bfloat16" else 4 * 1.2e-7 * (3 * 40 + 2)
    for got, want in ((y, want_y), (x.grad, want_x), (w.grad, want_w), (bias.grad, want_bias)):
        err = (got.double() - want).abs().max().item()
        assert err <= 4 * unit * max(want.abs().max().item(), 1.0), (err, want.abs().max().item())


def test_fused_epilogue_under_torch_compile():
    """The same layer compiled: tilegemm::mm_epilogue in the graph, gradients equal to eager's."""
    gen = torch.Generator(device="cuda").manual_seed(37)
    x, w, bias = uniform(2, 33, 80, gen=gen), uniform(48, 80, gen=gen), uniform(48, gen=gen)
    for t in (x, w, bias):
        t.requires_grad_()

    def f(p, q, r):
        return tilegemm.matmul(p, q.t(), bias=r, activation="relu", math="fp32")

    grad = uniform(2, 33, 48, gen=gen)
    f(x, w, bias).backward(grad)
    eager = [t.grad.clone() for t in (x, w, bias)]
    for t in (x, w, bias):
        t.grad = None
    ops = []

    def backend(gm, example_inputs):
        ops.extend(str(node.target) for node in gm.graph.nodes if node.op == "call_function")
        return gm.forward

    torch._dynamo.reset()
    y = torch.compile(f, backend=backend, fullgraph=True)(x, w, bias)
    assert any("mm_epilogue" in op for op in ops), ops
    y.backward(grad)
    for got, want in zip((x.grad, w.grad, bias.grad), eager):
        assert torch.allclose(got, want, rtol=1e-5, atol=1e-5)


# --- the precision mapping -------------------------------------------------------------------

MATH = {"highest": "ffma", "high": "tf32", "medium": "tf32"}


@pytest.mark.parametrize("precision", ["highest", "high", "medium"])
def test_precision_picks_the_math(precision):
    # 4096^3 runs on tensor cores when the math allows it (docs/shapes.md): under "tf32" level 8's
    # TF32 kernel on Hopper, else 3xTF32 (level 7, or level 8 on Hopper, under "fp32"); FFMA tiles
    # ("tiled:...:tTMxTN:...") under "ffma".
    a = torch.empty(4096, 4096, device="cuda")
    b = torch.empty(4096, 4096, device="cuda")
    torch.set_float32_matmul_precision(precision)
    config = tilegemm.explain_choice(a, b)["config"]
    if precision == "highest":
        assert config.startswith("tiled:") and not on_split_tensor_cores(config), config
    else:
        assert on_tensor_cores(config), config
    # an explicit math wins over the precision
    assert on_split_tensor_cores(tilegemm.explain_choice(a, b, math="fp32")["config"])
    ffma = tilegemm.explain_choice(a, b, math="ffma")["config"]
    assert ffma.startswith("tiled:") and not on_split_tensor_cores(ffma)


@pytest.mark.parametrize("precision", ["highest", "high"])
def test_precision_reaches_every_path(precision):
    # FFMA and tensor cores round differently: a result equal to the one of the mapped math, bit for
    # bit, shows which ran (1000^3: tensor cores under "tf32", test_torch_gpu.py). Eager, autograd,
    # compiled.
    gen = torch.Generator(device="cuda").manual_seed(17)
    a, b = uniform(1000, 1000, gen=gen), uniform(1000, 1000, gen=gen)
    want = tilegemm.matmul(a, b, math=MATH[precision])
    other = tilegemm.matmul(a, b, math="tf32" if MATH[precision] == "ffma" else "ffma")
    assert not torch.equal(want, other)
    torch.set_float32_matmul_precision(precision)
    assert torch.equal(tilegemm.matmul(a, b), want)
    assert torch.equal(tilegemm.matmul(a.clone().requires_grad_(), b).detach(), want)
    torch._dynamo.reset()
    assert torch.equal(torch.compile(lambda x, y: tilegemm.matmul(x, y))(a, b), want)


def test_compiled_graph_carries_the_math():
    # The traced call holds the resolved math as a constant; moving between "highest" and "high"
    # recompiles (dynamo guards on the TF32 switch); an explicit math stays what it says.
    ran = []

    def backend(gm, example_inputs):
        maths = [node.kwargs.get("math", node.args[5] if len(node.args) > 5 else "fp32")
                 for node in gm.graph.nodes
                 if node.op == "call_function" and "tilegemm.mm" in str(node.target)]

        def run(*args):
            ran.append(maths)  # what the graph that runs says
            return gm.forward(*args)

        return run

    torch._dynamo.reset()
    f = torch.compile(lambda x, y: tilegemm.matmul(x, y), backend=backend, fullgraph=True)
    g = torch.compile(lambda x, y: tilegemm.matmul(x, y, math="fp32"), backend=backend, fullgraph=True)
    a, b = uniform(64, 32), uniform(32, 16)
    for precision in ["highest", "high", "medium", "highest"]:
        torch.set_float32_matmul_precision(precision)
        f(a, b)
        assert ran[-1] == [MATH[precision]]
        g(a, b)
        assert ran[-1] == ["fp32"]


# --- special values through the door ---------------------------------------------------------

@pytest.mark.parametrize("precision, kernel", [("highest", "auto"), ("high", "auto"),
                                               ("high", 7)])  # 7: 3xTF32 named, whatever Auto picks
def test_special_values_through_the_door(precision, kernel):
    # IEEE classes where FP32 arithmetic gives them (docs/python.md, "FP32 means FP32"): an inf in
    # a[0, 0] makes row 0 of the product +-inf and leaves every other row finite.
    torch.set_float32_matmul_precision(precision)
    gen = torch.Generator(device="cuda").manual_seed(23)
    a = torch.randn(256, 256, device="cuda", generator=gen)
    b = torch.randn(256, 256, device="cuda", generator=gen)
    a[0, 0] = math.inf
    got = tilegemm.matmul(a, b, kernel=kernel)
    want = torch.matmul(a.double(), b.double())
    assert torch.isinf(want[0]).all()
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(torch.isinf(got), torch.isinf(want))
    inf = torch.isinf(want)
    assert torch.equal(torch.signbit(got[inf]), torch.signbit(want[inf]))
    assert torch.isfinite(got[1:]).all()
