"""The products as torch custom ops (torch.library), so they trace under torch.compile and replay
in CUDA graphs: tilegemm::mm, tilegemm::mm_out, tilegemm::bsr_linear, tilegemm::bsr_mm.

Eager calls of tilegemm.matmul / bsr_linear / bsr_mm go straight to the library (the dispatcher
would add its own overhead to every call); while torch.compile traces, they emit these ops.
Imported only when a torch tensor reaches the package: the package imports without torch.
(The kernel argument is `kernel_name`: inductor's fallback for custom ops takes `kernel` itself.)
"""
from __future__ import annotations

from typing import List, Optional

import torch
from torch import Tensor

from . import _bsr, _matmul


def compiling() -> bool:
    return torch.compiler.is_compiling()


def _mm_shape(a: Tensor, b: Tensor) -> List[int]:
    batch = []
    if a.dim() == 3 or b.dim() == 3:
        batch = [max(a.shape[0] if a.dim() == 3 else 1, b.shape[0] if b.dim() == 3 else 1)]
    return batch + [a.shape[-2], b.shape[-1]]


@torch.library.custom_op("tilegemm::mm", mutates_args=(), device_types="cuda")
def mm(a: Tensor, b: Tensor, alpha: float = 1.0, kernel_name: str = "auto", config: str = "",
       math: str = "fp32") -> Tensor:
    return _matmul.matmul(a, b, alpha=alpha, kernel=kernel_name, config=config or None, math=math)


@mm.register_fake
def _(a, b, alpha=1.0, kernel_name="auto", config="", math="fp32"):
    return a.new_empty(_mm_shape(a, b))


@torch.library.custom_op("tilegemm::mm_out", mutates_args=("out",), device_types="cuda")
def mm_out(a: Tensor, b: Tensor, out: Tensor, alpha: float = 1.0, beta: float = 0.0,
           kernel_name: str = "auto", config: str = "", math: str = "fp32") -> None:
    _matmul.matmul(a, b, out=out, alpha=alpha, beta=beta, kernel=kernel_name, config=config or None, math=math)


@mm_out.register_fake
def _(a, b, out, alpha=1.0, beta=0.0, kernel_name="auto", config="", math="fp32"):
    return None


def matmul_traced(a, b, *, out, alpha, beta, kernel, config, math):
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
        return mm(a, b, float(alpha), str(kernel), config or "", str(math))
    mm_out(a, b, out, float(alpha), float(beta), str(kernel), config or "", str(math))
    return out


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
