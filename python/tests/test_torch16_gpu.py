"""tilegemm.matmul on bfloat16 and float16 torch tensors (FP32 accumulation, the result in the input
type), against torch's float64 product of the same 16-bit values: layouts and views, out/beta,
batches, autograd, torch.compile (forward and backward), explain_choice and the dtype errors."""
import pytest

import tilegemm

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

DTYPES = [torch.bfloat16, torch.float16]
UNIT_ROUNDOFF = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}


def assert_close16(got, want, k, dtype):
    # Two roundings to the 16-bit output (of the largest |C|) plus the FP32 accumulation over k terms.
    assert got.dtype == dtype
    scale = want.abs().max().item() if want.numel() else 0.0
    bound = 2 * UNIT_ROUNDOFF[dtype] * scale + 4 * 1.2e-7 * (k + 2) * max(scale, 1.0)
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    assert err <= bound, f"max error {err}, bound {bound}"


def operand(rows, cols, how, dtype, gen):
    """rows x cols: 'c' contiguous, 't' a transposed view, 'pad' rows padded by 3 elements, 'off'
    starting one element in (addresses off 16 bytes)."""
    if how == "t":
        return torch.rand(cols, rows, device="cuda", generator=gen).mul(2).sub(1).to(dtype).t()
    if how == "pad":
        return torch.rand(rows, cols + 3, device="cuda", generator=gen).mul(2).sub(1).to(dtype)[:, :cols]
    if how == "off":
        flat = torch.rand(rows * cols + 1, device="cuda", generator=gen).mul(2).sub(1).to(dtype)
        return flat[1:].view(rows, cols)
    return torch.rand(rows, cols, device="cuda", generator=gen).mul(2).sub(1).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n, k", [(1, 4096, 4096), (4, 1000, 520), (257, 383, 200), (1024, 768, 1031), (33, 1, 65)])
@pytest.mark.parametrize("la, lb", [("c", "t"), ("c", "c"), ("t", "c"), ("t", "t"), ("pad", "off")])
def test_matmul_16bit_shapes_and_views(dtype, m, n, k, la, lb):
    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n + k)
    a, b = operand(m, k, la, dtype, gen), operand(k, n, lb, dtype, gen)
    c = tilegemm.matmul(a, b)
    assert c.shape == (m, n)
    assert_close16(c, a.double() @ b.double(), k, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_beta_and_batches(dtype):
    gen = torch.Generator(device="cuda").manual_seed(5)
    a, b = operand(300, 200, "c", dtype, gen), operand(200, 100, "t", dtype, gen)
    out = operand(300, 100, "c", dtype, gen)
    want = 1.5 * (a.double() @ b.double()) - 0.5 * out.double()
    tilegemm.matmul(a, b, out=out, alpha=1.5, beta=-0.5)
    assert_close16(out, want, 200, dtype)
    x = operand(4 * 64, 96, "c", dtype, gen).view(4, 64, 96)
    w = operand(96, 80, "t", dtype, gen)  # broadcast over the batch
    y = tilegemm.matmul(x, w)
    assert y.shape == (4, 64, 80) and y.dtype == dtype
    assert_close16(y, x.double() @ w.double(), 96, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_autograd_16bit(dtype):
    gen = torch.Generator(device="cuda").manual_seed(9)
    a = operand(128, 256, "c", dtype, gen).requires_grad_()
    b = operand(256, 64, "t", dtype, gen).requires_grad_()
    c = tilegemm.matmul(a, b)
    g = operand(128, 64, "c", dtype, gen)
    c.backward(g)
    assert a.grad.dtype == dtype and b.grad.dtype == dtype
    assert_close16(a.grad, g.double() @ b.detach().double().t(), 64, dtype)
    assert_close16(b.grad, a.detach().double().t() @ g.double(), 128, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_compile_16bit_forward(dtype):
    # tilegemm::mm and tilegemm::mm_out in one graph (fullgraph: no break), and a batch times a
    # transposed view broadcast over it.
    torch._dynamo.reset()
    gen = torch.Generator(device="cuda").manual_seed(13)
    a, b = operand(96, 80, "c", dtype, gen), operand(80, 72, "c", dtype, gen)
    c = operand(96, 72, "c", dtype, gen)
    x = torch.rand(4, 33, 80, device="cuda", generator=gen).mul(2).sub(1).to(dtype)
    w = operand(48, 80, "c", dtype, gen)
    want_y = 0.5 * (a.double() @ b.double())
    want_c = 1.5 * (a.double() @ b.double()) - 0.5 * c.double()
    want_z = x.double() @ w.double().t()

    def f(p, q, o, s, v):
        y = tilegemm.matmul(p, q, alpha=0.5)
        tilegemm.matmul(p, q, out=o, alpha=1.5, beta=-0.5)
        return y, tilegemm.matmul(s, v.t())

    eager = tilegemm.matmul(a, b, alpha=0.5)
    y, z = torch.compile(f, fullgraph=True)(a, b, c, x, w)
    assert y.shape == (96, 72) and z.shape == (4, 33, 48)
    assert_close16(y, want_y, 80, dtype)
    assert_close16(c, want_c, 80, dtype)
    assert_close16(z, want_z, 80, dtype)
    # The graph runs tilegemm's own product: the eager call's kernel, to the bit (contiguous
    # operands, so the graph cannot have passed them in another layout).
    assert torch.equal(y, eager)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ["2d", "linear"])
def test_torch_compile_16bit_backward(dtype, case):
    torch._dynamo.reset()
    gen = torch.Generator(device="cuda").manual_seed(17)
    if case == "2d":
        a = operand(96, 80, "c", dtype, gen).requires_grad_()
        b = operand(80, 72, "t", dtype, gen).requires_grad_()
        k_a, k_b = 72, 96  # the sums of grad @ b^T and a^T @ grad

        def f(x, y):
            return tilegemm.matmul(x, y, alpha=0.5)

        def reference(x, y):
            return 0.5 * (x @ y)
    else:  # a linear layer: x[B, T, k] @ w[n, k]^T, w.t() broadcast over the batch
        a = torch.rand(4, 33, 80, device="cuda", generator=gen).mul(2).sub(1).to(dtype).requires_grad_()
        b = operand(48, 80, "c", dtype, gen).requires_grad_()
        k_a, k_b = 48, 4 * 33  # w's gradient sums over the batch's 4 * 33 rows

        def f(x, w):
            return tilegemm.matmul(x, w.t(), alpha=0.5)

        def reference(x, w):
            return 0.5 * (x @ w.t())

    ad, bd = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    want = reference(ad, bd)
    grad = torch.rand(*want.shape, device="cuda", generator=gen).mul(2).sub(1).to(dtype)
    want.backward(grad.double())
    assert_close16(f(a.detach(), b.detach()), want.detach(), 80, dtype)  # eager first, as a model's warm-up
    y = torch.compile(f, fullgraph=True)(a, b)
    assert y.grad_fn is not None
    assert_close16(y, want.detach(), 80, dtype)
    y.backward(grad)
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert_close16(a.grad, ad.grad, k_a, dtype)
    assert_close16(b.grad, bd.grad, k_b, dtype)


def test_explain_and_dtype_errors():
    a = torch.randn(64, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    assert tilegemm.explain_choice(a, w)["config"].startswith("wgmma:")
    assert tilegemm.explain_choice(a[:1], w.t())["config"].startswith("skinny16")  # decode, x @ W^T
    with pytest.raises(TypeError, match=r"^b: dtype float16 is not supported here; this takes bfloat16"):
        tilegemm.matmul(a, w.half())
    with pytest.raises(TypeError, match=r"^out: dtype float32 is not supported here; this takes bfloat16"):
        tilegemm.matmul(a, w, out=torch.empty(64, 4096, device="cuda"))


def activation_f64(x, name):
    """The activations in float64, in the forms without cancellation in the negative tails."""
    if name == "relu":
        return x.clamp(min=0)
    if name in ("gelu", "gelu-erf"):
        return 0.5 * x * torch.special.erfc(-x / 2 ** 0.5)
    if name == "gelu-tanh":
        return x / (1 + torch.exp(-2 * (2 / torch.pi) ** 0.5 * (x + 0.044715 * x ** 3)))
    if name == "silu":
        return x / (1 + torch.exp(-x))
    return x


@pytest.mark.parametrize("dtype", DTYPES + [torch.float32])
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu-tanh", "silu"])
def test_fused_bias_and_activation(dtype, activation):
    """x @ w^T + bias, then the activation, fused: 2-D, a column-major out (the bias then runs along
    the computed C^T's rows), a batch, a float32 bias for 16-bit data; against float64."""
    gen = torch.Generator(device="cuda").manual_seed(11)
    x, w = operand(200, 96, "c", dtype, gen), operand(96, 136, "t", dtype, gen)
    bias = torch.rand(136, device="cuda", generator=gen).mul(2).sub(1).to(dtype)
    pre = x.double() @ w.double() + bias.double()
    want = activation_f64(pre, activation)
    got = tilegemm.matmul(x, w, bias=bias, activation=activation, math="fp32")
    tol = (2 * UNIT_ROUNDOFF.get(dtype, 2.0 ** -15) * pre.abs().max().item() + 4 * 1.2e-7 * 98 * 2)
    assert got.dtype == dtype and (got.double() - want).abs().max().item() <= tol
    out = torch.empty(136, 200, device="cuda", dtype=dtype).t()  # column-major result
    tilegemm.matmul(x, w, out=out, bias=bias.float(), activation=activation, math="fp32")
    assert (out.double() - want).abs().max().item() <= tol
    xb = operand(3 * 64, 96, "c", dtype, gen).view(3, 64, 96)
    yb = tilegemm.matmul(xb, w, bias=bias, activation=activation, math="fp32")
    want_b = activation_f64(xb.double() @ w.double() + bias.double(), activation)
    assert yb.shape == (3, 64, 136) and (yb.double() - want_b).abs().max().item() <= tol


def test_bias_and_activation_with_autograd_and_errors():
    """With autograd (tilegemm::mm_epilogue, GELU after it as torch's): gradients of a, w and bias
    match torch's; bad epilogue arguments are named."""
    gen = torch.Generator(device="cuda").manual_seed(12)
    x = torch.rand(64, 48, device="cuda", generator=gen).requires_grad_()
    w = torch.rand(48, 40, device="cuda", generator=gen).requires_grad_()
    bias = torch.rand(40, device="cuda", generator=gen).requires_grad_()
    y = tilegemm.matmul(x, w, bias=bias, activation="gelu-tanh", math="ffma")
    y.sum().backward()
    grads = [t.grad.clone() for t in (x, w, bias)]
    for t in (x, w, bias):
        t.grad = None
    torch.nn.functional.gelu(x @ w + bias, approximate="tanh").sum().backward()
    for got, t in zip(grads, (x, w, bias)):
        assert torch.allclose(got, t.grad, rtol=1e-4, atol=1e-4)
    # 16-bit data, a float32 bias: the result keeps the data's dtype on the autograd path too.
    xb = x.detach().bfloat16().requires_grad_()
    yb = tilegemm.matmul(xb, w.detach().bfloat16(), bias=bias, activation="relu")
    assert yb.dtype == torch.bfloat16 and yb.grad_fn is not None
    with pytest.raises(RuntimeError, match="out: products with out= don't support automatic differentiation, "
                                           "but bias requires grad"):
        tilegemm.matmul(x.detach(), w.detach(), out=torch.empty(64, 40, device="cuda"), bias=bias)
    with pytest.raises(ValueError, match=r"bias: shape \(40, 1\), expected \(40,\)"):
        tilegemm.matmul(x, w, bias=bias.detach().view(40, 1))
    with torch.no_grad():
        with pytest.raises(ValueError, match="activation: 'swish' is not one of"):
            tilegemm.matmul(x, w, activation="swish")
        with pytest.raises(ValueError, match=r"bias: shape \(39,\), expected \(40,\)"):
            tilegemm.matmul(x, w, bias=bias[:39])
        with pytest.raises(ValueError, match="bias: stride 2; the bias must be contiguous"):
            tilegemm.matmul(x, w, bias=torch.rand(80, device="cuda")[::2])
        with pytest.raises(TypeError, match="bias: dtype float16 is not supported here"):
            tilegemm.matmul(x, w, bias=bias.half())
