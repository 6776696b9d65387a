"""The products as torch custom ops (torch.library), so they trace under torch.compile and replay
in CUDA graphs: tilegemm::mm, tilegemm::mm_epilogue, tilegemm::mm_out, tilegemm::bsr_linear,
tilegemm::bsr_mm.

Eager calls of tilegemm.matmul / bsr_linear / bsr_mm go straight to the library (the dispatcher
would add its own overhead to every call); while torch.compile traces, they emit these ops, and
so does an eager matmul that autograd must record (tilegemm::mm and tilegemm::mm_epilogue have a
backward, run by tilegemm).
Imported only when a torch tensor reaches the package: the package imports without torch.
(The kernel argument is `kernel_name`: inductor's fallback for custom ops takes `kernel` itself.
`math` is always a resolved value, "fp32", "ffma" or "tf32": the precision mapping happens before.)
"""
from __future__ import annotations

from typing import List, Optional

import torch
from torch import Tensor

from . import _arrays, _bsr, _matmul


def compiling() -> bool:
    return torch.compiler.is_compiling()


@torch.compiler.assume_constant_result
def traced_math() -> str:
    """_matmul.torch_math for a call torch.compile traces: run once while tracing, its answer put
    in the graph as a constant (dynamo cannot trace get_float32_matmul_precision()). dynamo's
    guard on the TF32 switch recompiles when the precision moves between "highest" and
    "high"/"medium", the one change that maps to another math."""
    return _matmul.torch_math(torch)


def _mm_shape(a: Tensor, b: Tensor) -> List[int]:
    batch = []
    if a.dim() == 3 or b.dim() == 3:  # as _matmul.operands: a batch of 1 (or 2-D) takes the other's
        batch_a = a.shape[0] if a.dim() == 3 else 1
        batch = [(b.shape[0] if b.dim() == 3 else 1) if batch_a == 1 else batch_a]
    return batch + [a.shape[-2], b.shape[-1]]


@torch.library.custom_op("tilegemm::mm", mutates_args=(), device_types="cuda")
def mm(a: Tensor, b: Tensor, alpha: float = 1.0, kernel_name: str = "auto", config: str = "",
       math: str = "fp32") -> Tensor:
    return _matmul.run(a, b, None, alpha, 0.0, kernel_name, config or None, math)


@mm.register_fake
def _(a, b, alpha=1.0, kernel_name="auto", config="", math="fp32"):
    return a.new_empty(_mm_shape(a, b))


def _mm_setup_context(ctx, inputs, output):
    a, b, alpha, kernel_name, config, math = inputs
    need_a, need_b = ctx.needs_input_grad[:2]
    # a's gradient reads b, b's reads a: keep only what backward will read.
    ctx.save_for_backward(b if need_a else None, a if need_b else None)
    ctx.a_shape, ctx.b_shape = a.shape, b.shape
    # config is left out: it names a kernel for the forward's shape, not for the gradients'.
    ctx.alpha, ctx.kernel_name, ctx.math = alpha, kernel_name, math


def _mm_backward(ctx, grad):
    b, a = ctx.saved_tensors
    return _operand_grads(ctx, _blas_ready(grad), a, b) + (None, None, None, None)


def _operand_grads(ctx, grad: Tensor, a: Optional[Tensor], b: Optional[Tensor]):
    """(grad_a, grad_b) of alpha * a @ b for the result's gradient `grad` (a BLAS view), each None
    where autograd does not ask for it (ctx.needs_input_grad[0], [1])."""
    batch = grad.shape[0] if grad.dim() == 3 else None
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:  # alpha * grad @ b^T
        grad_a = _operand_grad(grad, b.transpose(-1, -2), ctx.a_shape, batch, ctx)
    if ctx.needs_input_grad[1]:  # alpha * a^T @ grad
        grad_b = _operand_grad(a.transpose(-1, -2), grad, ctx.b_shape, batch, ctx)
    return grad_a, grad_b


def _blas_ready(t: Tensor) -> Tensor:
    """t, or a row-major copy when its matrices are not BLAS views (stride 0, both strides > 1)."""
    if t.numel() == 0:  # any strides (an expanded empty tensor's are 0), and contiguous() keeps them
        return t.new_zeros(t.shape)
    try:
        _arrays.blas_matrix("grad", t.shape[-2], t.shape[-1], t.stride(-2), t.stride(-1))
        return t
    except ValueError:
        return t.contiguous()


def _operand_grad(left: Tensor, right: Tensor, shape, batch, ctx) -> Tensor:
    """alpha * left @ right: the gradient of an operand of `shape`, batched like the result (batch:
    the result's, None for a 2-D result); summed over the batch when that operand was broadcast
    over it (2-D, or a batch of one, against another batch): then as one product with the batch
    folded into K where both views allow it (_matmul.batch_in_k), else the batch's products
    summed by torch."""
    alpha, kernel, math = ctx.alpha, ctx.kernel_name, ctx.math
    if batch is None or (len(shape) == 3 and shape[0] == batch):
        return _product(ctx, left, right, alpha, kernel, "", math)
    # Broadcast: left and right are both batches of `batch` (grad, and the other operand's view).
    folded = _matmul.batch_in_k(tuple(left.shape), left.stride(), tuple(right.shape), right.stride())
    if folded is not None:
        (l_shape, l_strides), (r_shape, r_strides) = folded
        summed = _product(ctx, left.as_strided(l_shape, l_strides), right.as_strided(r_shape, r_strides), alpha,
                          kernel, "", math)
    else:
        summed = _product(ctx, left, right, alpha, kernel, "", math).sum(0)
    return summed.reshape(shape)


mm.register_autograd(_mm_backward, setup_context=_mm_setup_context)


def _run(a, b, alpha, kernel_name, config, math):
    """alpha * a @ b on the library directly: the eager autograd products (_EagerProduct's forward
    without an epilogue, the eager backwards)."""
    return _matmul.run(a, b, None, alpha, 0.0, kernel_name, config or None, math)


def _product(ctx, a, b, alpha, kernel_name, config, math):
    """A backward's product: directly (_run) in an eager backward that records nothing (grad mode
    off: no create_graph), else as tilegemm::mm, which records its own backward (double backward)
    and is what AOTAutograd traces (its fake tensors have no data for a direct call)."""
    if getattr(ctx, "eager", False) and not torch.is_grad_enabled() and not compiling():
        return _run(a, b, alpha, kernel_name, config, math)
    return mm(a, b, alpha, kernel_name, config, math)


# The activations tilegemm::mm_epilogue applies itself: their backward needs only the result.
FUSED_UNDER_AUTOGRAD = ("none", "relu")


def _refuse_unfused_activation(activation: str, what: str) -> None:
    """ValueError for an activation whose gradient the recorded products do not compute."""
    if activation not in FUSED_UNDER_AUTOGRAD:
        raise ValueError(f"activation: {activation!r}; {what} applies {' or '.join(FUSED_UNDER_AUTOGRAD)} "
                         "(matmul runs the others after it)")


@torch.library.custom_op("tilegemm::mm_epilogue", mutates_args=(), device_types="cuda")
def mm_epilogue(a: Tensor, b: Tensor, bias: Optional[Tensor], alpha: float = 1.0, activation: str = "none",
                kernel_name: str = "auto", config: str = "", math: str = "fp32") -> Tensor:
    """activation(alpha * a @ b + bias) in one library call (the fused epilogue), for autograd and
    torch.compile; activation is one of FUSED_UNDER_AUTOGRAD (the backward knows no other)."""
    _refuse_unfused_activation(activation, "tilegemm::mm_epilogue")
    return _matmul._general(a, b, None, alpha, 0.0, kernel_name, config or None, None, math, bias, activation)


@mm_epilogue.register_fake
def _(a, b, bias, alpha=1.0, activation="none", kernel_name="auto", config="", math="fp32"):
    return a.new_empty(_mm_shape(a, b))


def _mm_epilogue_setup_context(ctx, inputs, output):
    a, b, bias, alpha, activation, kernel_name, config, math = inputs
    need_a, need_b = ctx.needs_input_grad[:2]
    # The ReLU's gradient is masked by the result (as torch's threshold_backward): kept only then.
    ctx.save_for_backward(b if need_a else None, a if need_b else None, output if activation == "relu" else None)
    ctx.a_shape, ctx.b_shape = a.shape, b.shape
    ctx.bias_dtype = bias.dtype if bias is not None else None
    ctx.alpha, ctx.kernel_name, ctx.math = alpha, kernel_name, math


def _mm_epilogue_backward(ctx, grad):
    b, a, result = ctx.saved_tensors
    if result is not None:  # ReLU: no gradient where the result is 0
        grad = torch.ops.aten.threshold_backward(grad, result, 0)
    grad = _blas_ready(grad)
    grad_bias = None
    if ctx.needs_input_grad[2]:  # every row of every batch added the bias: the column sums, in FP32
        grad_bias = grad.sum(dim=tuple(range(grad.dim() - 1)), dtype=torch.float32).to(ctx.bias_dtype)
    return _operand_grads(ctx, grad, a, b) + (grad_bias, None, None, None, None, None)


mm_epilogue.register_autograd(_mm_epilogue_backward, setup_context=_mm_epilogue_setup_context)


class _EagerProduct(torch.autograd.Function):
    """activation(alpha * a @ b + bias) for eager autograd, without the dispatcher: tilegemm::mm's
    forward and backward (no bias, activation "none") or tilegemm::mm_epilogue's. Through the custom
    ops a recorded layer cost ~130-170 us more host time than the same call unrecorded (H200 host,
    torch 2.11, 2026-11-29), longer than the product itself below a few GFLOP. torch.compile traces
    the ops."""

    @staticmethod
    def forward(a, b, bias, alpha, activation, kernel_name, config, math):
        _refuse_unfused_activation(activation, "the recorded product")
        if bias is None and activation == "none":
            return _run(a, b, alpha, kernel_name, config, math)
        return _matmul._general(a, b, None, alpha, 0.0, kernel_name, config or None, None, math, bias, activation)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _mm_epilogue_setup_context(ctx, inputs, output)
        ctx.eager = True

    @staticmethod
    def backward(ctx, grad):
        return _mm_epilogue_backward(ctx, grad)


def _eager_product(args, stream, device):
    """_EagerProduct on `stream` (torch's current stream when None): made torch's current stream
    around it, so that backward runs there too."""
    if stream is None:
        return _EagerProduct.apply(*args)
    if not isinstance(stream, torch.cuda.Stream):
        stream = torch.cuda.ExternalStream(_arrays.stream_handle(stream), device=device)
    with torch.cuda.stream(stream):
        return _EagerProduct.apply(*args)


def matmul_fused(a, b, bias, activation: str, *, alpha, beta, kernel, config, stream, math):
    """A matmul with bias or activation that autograd records or torch.compile traces: the bias and
    the activations of FUSED_UNDER_AUTOGRAD in tilegemm::mm_epilogue; GELU and SiLU as torch's
    functions after it (their gradients need the value before them, which the fused call does not
    keep)."""
    if beta != 0:
        raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
    if not compiling():  # named errors for what the op's schema or dispatch would refuse in their own words
        A = _arrays.describe("a", a, dtypes=_arrays.MATMUL_DTYPES)
        _matmul.operands(A, _arrays.describe("b", b, dtypes=(A.dtype,)))
        _matmul.check_torch_bias(torch, bias, b.shape[-1], a.dtype, a.device)
    fused = activation if activation in FUSED_UNDER_AUTOGRAD else "none"
    args = (a, b, bias, float(alpha), fused, str(kernel), config or "", str(math))
    y = mm_epilogue(*args) if compiling() else _eager_product(args, stream, a.device)
    return y if fused == activation else _matmul.torch_activation(torch, y, activation)


@torch.library.custom_op("tilegemm::mm_out", mutates_args=("out",), device_types="cuda")
def mm_out(a: Tensor, b: Tensor, out: Tensor, alpha: float = 1.0, beta: float = 0.0,
           kernel_name: str = "auto", config: str = "", math: str = "fp32") -> None:
    _matmul.run(a, b, out, alpha, beta, kernel_name, config or None, math)


@mm_out.register_fake
def _(a, b, out, alpha=1.0, beta=0.0, kernel_name="auto", config="", math="fp32"):
    return None


def _refuse_grad_through_out(a, b, out, bias=None) -> None:
    # As torch's own out= ops: autograd cannot record a write into a caller's tensor.
    names = [name for name, t in (("a", a), ("b", b), ("out", out), ("bias", bias))
             if getattr(t, "requires_grad", False)]
    if names and torch.is_grad_enabled():
        raise RuntimeError(f"out: products with out= don't support automatic differentiation, but "
                           f"{' and '.join(names)} require{'s' if len(names) == 1 else ''} grad; call "
                           "tilegemm.matmul without out= (the result then has a grad_fn), or under "
                           "torch.no_grad()")


def matmul_traced(a, b, *, out, alpha, beta, kernel, config, math):
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
        return mm(a, b, float(alpha), str(kernel), config or "", str(math))
    _refuse_grad_through_out(a, b, out)
    mm_out(a, b, out, float(alpha), float(beta), str(kernel), config or "", str(math))
    return out


def matmul_autograd(a, b, *, out, alpha, beta, kernel, config, stream, math):
    """An eager matmul that autograd records (_EagerProduct: tilegemm::mm's backward), on `stream`
    when given."""
    if out is not None:
        _refuse_grad_through_out(a, b, out)
    if beta != 0:
        raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
    # Named errors for what the op's schema or device dispatch would refuse in their own words.
    A = _arrays.describe("a", a, dtypes=_arrays.MATMUL_DTYPES)
    _matmul.operands(A, _arrays.describe("b", b, dtypes=(A.dtype,)))
    return _eager_product((a, b, None, float(alpha), "none", str(kernel), config or "", str(math)), stream, a.device)


def _bsr_out_shape(xwt: bool, x: Tensor, rows: int) -> List[int]:
    return list(x.shape[:-1]) + [rows] if xwt else [rows, x.shape[-1]]


@torch.library.custom_op("tilegemm::bsr_product", mutates_args=(), device_types="cuda")
def bsr_product(xwt: bool, x: Tensor, values: Tensor, block_indices: Tensor, index_pointer: Tensor,
                row_order: Tensor, row_lengths: Tensor, rows: int, cols: int, alpha: float = 1.0,
                kernel_name: str = "auto") -> Tensor:
    out = x.new_empty(_bsr_out_shape(xwt, x, rows))
    _bsr.bsr_prepared_product(xwt, x, values, block_indices, index_pointer, row_order, row_lengths,
                              rows, cols, out, alpha, 0.0, kernel_name)
    return out


@bsr_product.register_fake
def _(xwt, x, values, block_indices, index_pointer, row_order, row_lengths, rows, cols, alpha=1.0,
      kernel_name="auto"):
    return x.new_empty(_bsr_out_shape(xwt, x, rows))


@torch.library.custom_op("tilegemm::bsr_product_out", mutates_args=("out",), device_types="cuda")
def bsr_product_out(xwt: bool, x: Tensor, values: Tensor, block_indices: Tensor, index_pointer: Tensor,
                    row_order: Tensor, row_lengths: Tensor, rows: int, cols: int, out: Tensor,
                    alpha: float = 1.0, beta: float = 0.0, kernel_name: str = "auto") -> None:
    _bsr.bsr_prepared_product(xwt, x, values, block_indices, index_pointer, row_order, row_lengths,
                              rows, cols, out, alpha, beta, kernel_name)


@bsr_product_out.register_fake
def _(xwt, x, values, block_indices, index_pointer, row_order, row_lengths, rows, cols, out,
      alpha=1.0, beta=0.0, kernel_name="auto"):
    return None


def bsr_traced(xwt: bool, x: Tensor, w: "_bsr.BsrMatrix", out: Optional[Tensor], alpha: float,
               beta: float, kernel):
    values, indices, pointer, order, lengths = w.torch_arrays()
    rows, cols = w.shape
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
        return bsr_product(xwt, x, values, indices, pointer, order, lengths, rows, cols, float(alpha),
                           str(kernel))
    bsr_product_out(xwt, x, values, indices, pointer, order, lengths, rows, cols, out, float(alpha),
                    float(beta), str(kernel))
    return out
