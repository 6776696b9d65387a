"""The products as torch custom ops (torch.library), so they trace under torch.compile and replay
in CUDA graphs: tilegemm::mm, tilegemm::mm_out, tilegemm::bsr_linear, tilegemm::bsr_mm.

Eager calls of tilegemm.matmul / bsr_linear / bsr_mm go straight to the library (the dispatcher
would add its own overhead to every call); while torch.compile traces, they emit these ops, and
so does an eager matmul that autograd must record (tilegemm::mm has a backward, run by tilegemm).
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
    grad = _blas_ready(grad)  # e.g. expanded (stride 0) by a .sum() downstream
    batch = grad.shape[0] if grad.dim() == 3 else None
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:  # alpha * grad @ b^T
        grad_a = _operand_grad(grad, b.transpose(-1, -2), ctx.a_shape, batch, ctx)
    if ctx.needs_input_grad[1]:  # alpha * a^T @ grad
        grad_b = _operand_grad(a.transpose(-1, -2), grad, ctx.b_shape, batch, ctx)
    return grad_a, grad_b, None, None, None, None


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
        return mm(left, right, alpha, kernel, "", math)
    # Broadcast: left and right are both batches of `batch` (grad, and the other operand's view).
    folded = _matmul.batch_in_k(tuple(left.shape), left.stride(), tuple(right.shape), right.stride())
    if folded is not None:
        (l_shape, l_strides), (r_shape, r_strides) = folded
        summed = mm(left.as_strided(l_shape, l_strides), right.as_strided(r_shape, r_strides), alpha,
                    kernel, "", math)
    else:
        summed = mm(left, right, alpha, kernel, "", math).sum(0)
    return summed.reshape(shape)


mm.register_autograd(_mm_backward, setup_context=_mm_setup_context)


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
    """An eager matmul that autograd records: through tilegemm::mm, on `stream` when given."""
    if out is not None:
        _refuse_grad_through_out(a, b, out)
    if beta != 0:
        raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
    # Named errors for what the op's schema or device dispatch would refuse in their own words.
    A = _arrays.describe("a", a, dtypes=_arrays.MATMUL_DTYPES)
    _matmul.operands(A, _arrays.describe("b", b, dtypes=(A.dtype,)))
    if stream is None:
        return mm(a, b, float(alpha), str(kernel), config or "", str(math))
    if not isinstance(stream, torch.cuda.Stream):
        stream = torch.cuda.ExternalStream(_arrays.stream_handle(stream), device=a.device)
    with torch.cuda.stream(stream):  # the op runs on torch's current stream, and so will backward
        return mm(a, b, float(alpha), str(kernel), config or "", str(math))


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
