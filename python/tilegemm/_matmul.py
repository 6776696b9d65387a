"""tilegemm.matmul: C = alpha * A @ B + beta * C on framework arrays, without copies."""
from __future__ import annotations

import functools
from typing import Any, NamedTuple, Optional

from . import _arrays, _tilegemm
from ._arrays import Array, BlasMatrix, blas_matrix, batch_of, describe

# torch.get_float32_matmul_precision() -> tilegemm's math, for torch tensors when the caller names none
# (docs/python.md). "high" and "medium" allow TF32 products in torch (cuBLAS's FAST_TF32): "tf32", which
# on Hopper runs level 8's TF32 kernel and elsewhere the FP32-accurate families ("medium"'s BF16 math
# has no tilegemm counterpart for FP32 data).
TORCH_PRECISION_MATH = {"highest": "ffma", "high": "tf32", "medium": "tf32"}
DEFAULT_MATH = "fp32"  # the library's default (GemmOptions::math): CuPy, JAX and other arrays


def resolve_math(math: Optional[str], torch_precision: Optional[str] = None) -> str:
    """The math a product runs with: `math` when the caller named one, else the one torch's
    float32 matmul precision asks for (`torch_precision`, None for other frameworks), else the
    library's default. A precision this table does not know (a newer torch) gets the default."""
    if math is not None:
        return str(math)
    if torch_precision is None:
        return DEFAULT_MATH
    return TORCH_PRECISION_MATH.get(torch_precision, DEFAULT_MATH)


def torch_math(torch) -> str:
    """The math torch's current float32 matmul precision maps to (eager calls: a C call and a
    dict look-up; traced calls use _torch_ops.traced_math)."""
    try:
        precision = torch.get_float32_matmul_precision()
    except RuntimeError:
        # torch >= 2.9 refuses to answer when only its per-backend setting was changed (it then
        # disagrees with the legacy one): that setting is the caller's word.
        precision = "high" if torch.backends.cuda.matmul.fp32_precision == "tf32" else "highest"
    return TORCH_PRECISION_MATH.get(precision, DEFAULT_MATH)  # resolve_math(None, precision), one call less


class GemmCall(NamedTuple):
    """One library call (tilegemm::sgemm, row-major) for `batch` products."""

    trans_a: bool
    trans_b: bool
    m: int
    n: int
    k: int
    a: int
    lda: int
    b: int
    ldb: int
    c: int
    ldc: int
    batch: int
    stride_a: int
    stride_b: int
    stride_c: int
    device: int
    transposed: bool = False  # C stored column-major: the call computes C^T = B^T A^T


def _matrix_shape(x: Array):
    return x.shape[-2], x.shape[-1], x.strides[-2], x.strides[-1]


def _same_device(name: str, x: Array, ref: Array) -> None:
    if x.device >= 0 and ref.device >= 0 and x.device != ref.device:
        raise ValueError(f"{name}: on CUDA device {x.device}, but a is on device {ref.device}")


class Operands(NamedTuple):
    shape: tuple  # the result's shape, batch first
    a: BlasMatrix
    b: BlasMatrix


def operands(a: Array, b: Array) -> Operands:
    """The result's shape and A's and B's BLAS forms, checking that a and b fit together."""
    m, k, sa0, sa1 = _matrix_shape(a)
    k_b, n, sb0, sb1 = _matrix_shape(b)
    _same_device("b", b, a)
    if k_b != k:
        raise ValueError(f"b: shape {b.shape} does not fit a: {a.shape} (a @ b needs b with {k} rows, "
                         f"the columns of a)")
    batch_a, _ = batch_of(a)
    batch_b, _ = batch_of(b)
    if batch_a != batch_b and batch_a != 1 and batch_b != 1:
        raise ValueError(f"b: batch {batch_b} does not broadcast with a's batch {batch_a}")
    batch = batch_b if batch_a == 1 else batch_a  # broadcasting: a batch of 0 against 1 is 0
    shape = (batch, m, n) if len(a.shape) == 3 or len(b.shape) == 3 else (m, n)
    return Operands(shape, blas_matrix("a", m, k, sa0, sa1), blas_matrix("b", k, n, sb0, sb1))


def plan(a: Array, b: Array, ops: Operands, c: Array) -> GemmCall:
    """The library call for C = alpha * A @ B + beta * C (a and b checked by operands())."""
    _same_device("out", c, a)
    expected = ops.shape
    if tuple(c.shape) != tuple(expected):
        raise ValueError(f"out: shape {tuple(c.shape)}, expected {tuple(expected)} for a {a.shape} @ b {b.shape}")
    m, k, _, _ = _matrix_shape(a)
    n = b.shape[-1]
    _, _, sc0, sc1 = _matrix_shape(c)
    ma, mb = ops.a, ops.b
    mc = blas_matrix("out", m, n, sc0, sc1)
    batch = expected[0] if len(expected) == 3 else 1
    stride_a = batch_of(a)[1]  # 0 for a 2-D operand or a batch of one: it broadcasts
    stride_b = batch_of(b)[1]
    stride_c = batch_of(c)[1]
    if batch > 1:
        # Each product's C must be its own: the batch stride has to step past a whole matrix.
        rows, cols = (n, m) if mc.transposed else (m, n)
        extent = (rows - 1) * mc.ld + cols if rows > 0 and cols > 0 else 0
        if abs(stride_c) < extent:
            raise ValueError(f"out: batch stride {stride_c} makes the {batch} results overlap "
                             f"(each spans {extent} elements)")
    device = a.device if a.device >= 0 else (b.device if b.device >= 0 else c.device)
    if not mc.transposed:
        return GemmCall(ma.transposed, mb.transposed, m, n, k, a.address, ma.ld, b.address, mb.ld,
                        c.address, mc.ld, batch, stride_a, stride_b, stride_c, device)
    # C stored column-major: compute C^T = B^T A^T into its row-major storage.
    return GemmCall(not mb.transposed, not ma.transposed, n, m, k, b.address, mb.ld, a.address, ma.ld,
                    c.address, mc.ld, batch, stride_b, stride_a, stride_c, device, True)


# matmul's activation= names -> the library's (gelu is torch's default GELU, the erf form).
ACTIVATIONS = {"none": "none", "relu": "relu", "gelu": "gelu-erf", "gelu-erf": "gelu-erf",
               "gelu-tanh": "gelu-tanh", "silu": "silu"}


def activation_name(activation: Optional[str]) -> str:
    """The library's name of an activation= value; ValueError naming the accepted ones."""
    if activation is None:
        return "none"
    name = ACTIVATIONS.get(str(activation))
    if name is None:
        raise ValueError(f"activation: {activation!r} is not one of " + ", ".join(sorted(ACTIVATIONS)))
    return name


def bias_vector(bias: Any, A: Array, ops: Operands, stream: int) -> Optional[Array]:
    """matmul's bias=: one value per column of the result (a's dtype or float32, contiguous)."""
    if bias is None:
        return None
    V = _arrays.describe_vector("bias", bias, stream, (A.dtype, "float32"), ops.shape[-1])
    _same_device("bias", V, A)
    return V


def epilogue_args(V: Optional[Array], activation: str, call: GemmCall) -> dict:
    """The fused epilogue's arguments of _tilegemm.gemm: the bias (bias_vector) runs along the
    result's columns, which are the rows of the computed C^T when the result is stored column-major;
    every batch adds it."""
    if V is None:
        return {"bias": 0, "bias_kind": "none", "bias_dtype": "", "activation": activation}
    return {"bias": V.address, "bias_kind": "row" if call.transposed else "column", "bias_dtype": V.dtype,
            "activation": activation}


def check_torch_bias(torch, bias, n: int, dtype, device) -> None:
    """The checks bias_vector makes, on a torch tensor, for the paths that hand the bias to torch
    (a custom op, torch operations): the same named errors before anything runs."""
    if bias is None:
        return
    if not isinstance(bias, torch.Tensor):
        raise TypeError(f"bias: a {type(bias).__name__}; with torch tensors the bias is a torch tensor")
    if bias.dim() != 1 or bias.shape[0] != n:
        raise ValueError(f"bias: shape {tuple(bias.shape)}, expected ({n},)")
    if bias.dtype not in (dtype, torch.float32):
        raise TypeError(f"bias: dtype {str(bias.dtype)[6:]} is not supported here; this takes "
                        f"{str(dtype)[6:]} or float32")
    if n > 1 and bias.stride(0) != 1:
        raise ValueError(f"bias: stride {bias.stride(0)}; the bias must be contiguous")
    if bias.device != device:
        raise ValueError(f"bias: on {bias.device}, but a is on {device}")


def torch_activation(torch, z, activation: str):
    """An activation (the library's name) as torch's own function: in FP32 inside for 16-bit z, one
    rounding (the ones the fused op leaves to torch under autograd: GELU and SiLU, whose backward
    needs the value before them)."""
    F = torch.nn.functional
    if activation == "relu":
        return F.relu(z)
    if activation == "gelu-erf":
        return F.gelu(z)
    if activation == "gelu-tanh":
        return F.gelu(z, approximate="tanh")
    if activation == "silu":
        return F.silu(z)
    return z


def _torch_epilogue(torch, y, bias, activation: str, out):
    """The bias and activation as torch operations after a product written into out (out= under
    torch.compile), in FP32 for 16-bit data and rounded once to y's dtype, as the fused epilogue."""
    check_torch_bias(torch, bias, y.shape[-1], y.dtype, y.device)
    z = y.float()
    if bias is not None:
        z = z + bias.float()
    out.copy_(torch_activation(torch, z, activation).to(y.dtype))
    return out


def batch_in_k(left_shape, left_strides, right_shape, right_strides):
    """sum_i L[i] @ R[i] over a batch as one product with the batch folded into K: the L[i]
    (p x q) side by side (p x batch*q) times the R[i] (q x r) stacked (batch*q x r). That is a
    view of both operands, no copy, when one batch step moves q columns of L and q rows of R
    (e.g. a^T @ grad for a row-major a and grad: the gradient of a weight broadcast over a batch).
    Returns ((shape, strides) of L's view, (shape, strides) of R's), or None."""
    batch, p, q = left_shape
    r = right_shape[2]
    l0, l1, l2 = left_strides
    r0, r1, r2 = right_strides
    if batch > 1 and (l0 != q * l2 or r0 != q * r1):
        return None
    try:  # and both views must be BLAS matrices (a leading dimension long enough)
        blas_matrix("left", p, batch * q, l1, l2)
        blas_matrix("right", batch * q, r, r1, r2)
    except ValueError:
        return None
    return ((p, batch * q), (l1, l2)), ((batch * q, r), (r1, r2))


_ops = None


def _torch_ops_module():
    global _ops
    if _ops is None:
        from . import _torch_ops

        _ops = _torch_ops
    return _ops


def _torch_2d(torch, a, b, out, alpha, beta, kernel, config, stream, math):
    """The common torch case (2-D float32 CUDA tensors on one device) with as few Python steps as
    possible: call overhead is what small products pay. None when anything is unusual: the
    general path then runs (and names what is wrong)."""
    dt = a.dtype
    if ((dt is not torch.float32 and dt is not torch.bfloat16 and dt is not torch.float16) or b.dtype is not dt
            or not a.is_cuda or not b.is_cuda or a.dim() != 2 or b.dim() != 2 or a.layout is not torch.strided
            or b.layout is not torch.strided):
        return None
    device = a.get_device()
    m, k = a.shape
    k_b, n = b.shape
    if k_b != k or b.get_device() != device:
        return None
    sa0, sa1 = a.stride()
    sb0, sb1 = b.stride()
    try:
        ma = blas_matrix("a", m, k, sa0, sa1)
        mb = blas_matrix("b", k, n, sb0, sb1)
    except ValueError:
        return None
    if out is None:
        if beta != 0:
            return None
        c = torch.empty((m, n), dtype=dt, device=a.device)
        tc, ldc = False, max(n, 1)
    else:
        c = out
        if (c.dtype is not dt or not c.is_cuda or c.dim() != 2 or c.layout is not torch.strided
                or c.get_device() != device or tuple(c.shape) != (m, n)):
            return None
        sc0, sc1 = c.stride()
        try:
            tc, ldc = blas_matrix("out", m, n, sc0, sc1)
        except ValueError:
            return None
    s = _arrays.stream_handle(stream) if stream is not None else _arrays.torch_stream(device)
    # float32 through sgemm (its argument names in errors); 16-bit through the typed entry.
    call = _tilegemm.sgemm if dt is torch.float32 else functools.partial(_tilegemm.gemm, dtype=str(dt)[6:])
    if tc:  # C stored column-major: C^T = B^T A^T
        call(not mb.transposed, not ma.transposed, n, m, k, float(alpha), b.data_ptr(), mb.ld, a.data_ptr(), ma.ld,
             float(beta), c.data_ptr(), ldc, s, device, str(kernel), config or "", math=str(math))
    else:
        call(ma.transposed, mb.transposed, m, n, k, float(alpha), a.data_ptr(), ma.ld, b.data_ptr(), mb.ld,
             float(beta), c.data_ptr(), ldc, s, device, str(kernel), config or "", math=str(math))
    return c


def matmul(a: Any, b: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0,
           kernel: Any = "auto", config: Optional[str] = None, stream: Any = None,
           math: Optional[str] = None, bias: Any = None, activation: Optional[str] = None):
    """C = activation(alpha * a @ b + beta * out + bias) (BLAS semantics), on the GPU.

    a, b: CUDA arrays (torch, CuPy, JAX, any DLPack array) of float32, bfloat16 or float16 (a, b
    and out of one type; 16-bit products accumulate in FP32 and return the input type), 2-D, or
    3-D batches (a 2-D operand broadcasts over the other's batch). Strided views map to leading
    dimensions and transposes (a transposed torch view is Op.T, not a copy).
    out: written in place when given; beta then scales its contents (beta == 0 never reads it).
      Without out a new array of a's framework is returned, and beta must be 0.
    kernel: "auto" (the analytic chooser), a ladder level 1-7 or its name.
    config: a config's text form (docs/shapes.md), run exactly; kernel must be "auto".
    stream: a CUDA stream (int handle, torch.cuda.Stream, cupy.cuda.Stream); default: the
      framework's current stream (torch, CuPy), else the legacy default stream.
    math: how "auto" may compute (GemmOptions::math): "fp32" (CUDA-core FFMA or 3xTF32 tensor
      cores, FP32 accuracy), "ffma" (CUDA cores only, IEEE FP32) or "tf32" (also one TF32 product:
      10-bit mantissas, on Hopper's level 8). None (default): for torch tensors,
      torch.get_float32_matmul_precision() decides, read at each call (under torch.compile, when
      tracing):
          "highest" -> "ffma";  "high" -> "tf32";  "medium" -> "tf32"
      (torch's own matmul runs TF32 under "high" and "medium"); for other arrays, "fp32". An
      explicit math always wins.
    Autograd (torch): when grad mode is on and a or b requires grad, the result has a grad_fn
      (tilegemm::mm's forward and backward; eager calls as a torch.autograd.Function, without the
      dispatcher) whose backward runs on tilegemm too: grad_a = alpha * grad @
      b^T, grad_b = alpha * a^T @ grad, on transposed views (no copies), with the forward's
      kernel and math; a config= is not used there (it fixes a kernel for the forward's shape),
      backward chooses with "auto" unless a ladder level was named. out= does not take part in
      autograd (as torch's own out= ops): with an input or out requiring grad and grad mode on,
      it raises RuntimeError; call without out=, or under torch.no_grad().
    bias: a 1-D array of one value per column of the result (n values; a's dtype or float32,
      contiguous), added to every row and every batch, as torch.nn.functional.linear's bias.
    activation: None, "relu", "gelu" (torch's default, erf form; also "gelu-erf"), "gelu-tanh"
      (approximate="tanh") or "silu", applied last, in FP32 before the one rounding to the output.
      Eager calls without autograd fuse bias and activation into the product (level 8 and skinny16
      apply them to the accumulators; other kernels run one elementwise pass after it). With
      autograd or under torch.compile the product runs as tilegemm::mm_epilogue (eager: the same
      forward and backward as a torch.autograd.Function, without the dispatcher): the
      bias and ReLU fused as above (backward: the ReLU's mask from the result, the bias's gradient
      the column sums); GELU and SiLU, whose gradients need the value before them, run as torch's
      own functions on the fused product-plus-bias (rounded once to the data's type first, as
      torch.nn.functional.linear followed by the activation). With out= under torch.compile, torch
      operations after the product.
    Returns out, or the new array. Raises ValueError (invalid argument, the library's message) or
    TypeError (unsupported array), RuntimeError for CUDA failures, before anything is launched.
    """
    act = activation_name(activation)
    fused = bias is not None or act != "none"
    if _arrays.is_torch_tensor(a):
        _torch_ops = _torch_ops_module()
        torch = _arrays._torch
        if fused and out is not None:
            _torch_ops._refuse_grad_through_out(a, b, out, bias)
        if _torch_ops.compiling():
            math = _torch_ops.traced_math() if math is None else math
            if fused and out is None:
                return _torch_ops.matmul_fused(a, b, bias, act, alpha=alpha, beta=beta, kernel=kernel,
                                               config=config, stream=None, math=math)
            if fused:
                y = _torch_ops.matmul_traced(a, b, out=out, alpha=alpha, beta=beta, kernel=kernel, config=config,
                                             math=math)
                return _torch_epilogue(torch, y, bias, act, out)
            return _torch_ops.matmul_traced(a, b, out=out, alpha=alpha, beta=beta, kernel=kernel,
                                            config=config, math=math)
        if math is None:
            math = torch_math(torch)
        # The direct call has no autograd: products that need a graph go through the custom op.
        if ((a.requires_grad or getattr(b, "requires_grad", False) or getattr(bias, "requires_grad", False)
             or (out is not None and getattr(out, "requires_grad", False))) and torch.is_grad_enabled()):
            if fused:
                return _torch_ops.matmul_fused(a, b, bias, act, alpha=alpha, beta=beta, kernel=kernel,
                                               config=config, stream=stream, math=math)
            return _torch_ops.matmul_autograd(a, b, out=out, alpha=alpha, beta=beta, kernel=kernel,
                                              config=config, stream=stream, math=math)
        if not fused:
            c = _torch_2d(torch, a, b, out, alpha, beta, kernel, config, stream, math)
            if c is not None:
                return c
    return _general(a, b, out, alpha, beta, kernel, config, stream, resolve_math(math), bias, act)


def run(a: Any, b: Any, out: Any, alpha: float, beta: float, kernel: Any, config: Optional[str], math: str):
    """The product on the library, nothing else: no autograd, no tracing, math already resolved
    (the custom ops' implementation)."""
    if _arrays.is_torch_tensor(a):
        c = _torch_2d(_arrays._torch, a, b, out, alpha, beta, kernel, config, None, math)
        if c is not None:
            return c
    return _general(a, b, out, alpha, beta, kernel, config, None, math)


def _general(a, b, out, alpha, beta, kernel, config, stream, math: str, bias: Any = None, activation: str = "none"):
    """Any arrays, 2-D or batched: described, checked and planned in full."""
    user_stream = _arrays.stream_handle(stream) if stream is not None else None
    A = describe("a", a, user_stream or 0, _arrays.MATMUL_DTYPES)
    B = describe("b", b, user_stream or 0, (A.dtype,))
    s = user_stream if user_stream is not None else _arrays.current_stream(A, None)
    ops = operands(A, B)
    V = bias_vector(bias, A, ops, s)
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
        result = _arrays.new_output(A, ops.shape, s)
        C, finish = result.target, result.finish
    else:
        C, finish = describe("out", out, s, (A.dtype,)), (lambda: out)
    call = plan(A, B, ops, C)
    args = (call.trans_a, call.trans_b, call.m, call.n, call.k, float(alpha), call.a, call.lda, call.b, call.ldb,
            float(beta), call.c, call.ldc, s, call.device, str(kernel), config or "", call.batch, call.stride_a,
            call.stride_b, call.stride_c)
    if bias is not None or activation != "none":
        _tilegemm.gemm(*args, math=str(math), dtype=A.dtype, **epilogue_args(V, activation, call))
    elif A.dtype == "float32":  # sgemm's argument names in errors
        _tilegemm.sgemm(*args, math=str(math))
    else:
        _tilegemm.gemm(*args, math=str(math), dtype=A.dtype)
    return finish()


def explain_choice(a: Any, b: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0,
                   kernel: Any = "auto", config: Optional[str] = None, math: Optional[str] = None) -> dict:
    """What matmul would run for these arrays and why: {config, kind, predicted_us, reason,
    runners_up} (tilegemm::explain_choice). Launches nothing. math as matmul's: None follows
    torch.get_float32_matmul_precision() for torch tensors ("highest" -> "ffma"), else "fp32"."""
    if math is None and _arrays.is_torch_tensor(a):
        math = torch_math(_arrays._torch)
    math = resolve_math(math)
    A = describe("a", a, dtypes=_arrays.MATMUL_DTYPES)
    B = describe("b", b, dtypes=(A.dtype,))
    ops = operands(A, B)
    if out is not None:
        C = describe("out", out, dtypes=(A.dtype,))
    else:  # an aligned row-major result stands in for the one matmul would allocate
        C = Array(256, ops.shape, tuple(_arrays._contiguous_strides(ops.shape)), A.device, "none", None, A.dtype)
    call = plan(A, B, ops, C)
    return _tilegemm.explain_choice(call.trans_a, call.trans_b, call.m, call.n, call.k, float(alpha),
                                    call.a, call.lda, call.b, call.ldb, float(beta), call.c, call.ldc,
                                    call.device, str(kernel), config or "", math=str(math), dtype=A.dtype)
