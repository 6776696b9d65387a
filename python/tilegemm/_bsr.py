"""Block-sparse (BSR) weights: tilegemm.BsrMatrix, bsr_linear (Y = X W^T) and bsr_mm (Y = W X)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _arrays, _tilegemm
from ._arrays import Array, describe, describe_index


class BsrMatrix:
    """A block-sparse matrix on the GPU, prepared for the products from device arrays in BSR
    form (torch.sparse_bsr_tensor's layout): no host round trip.

    crow_indices: block_row_count + 1 entries, col_indices: nnzb entries (int32 or int64; int64
    is converted once, here, on the device), values: nnzb x R x C float32 blocks (contiguous),
    shape: (rows, cols) of the dense matrix. The blocks (and int32 indices) are used in place:
    in-place updates of the values are seen by later products. validate: a device kernel checks
    the structure (ValueError naming the bad array and position); False trusts it. The
    longest-rows-first launch order is computed on the device. Construction waits for its own
    work, so the matrix is ready on any stream.
    """

    def __init__(self, crow_indices: Any, col_indices: Any, values: Any, shape: Tuple[int, int], *,
                 validate: bool = True, stream: Any = None):
        s = _arrays.stream_handle(stream) if stream is not None else None
        V = _arrays._raw("values", values, s or 0)
        if V.dtype != "float32":
            raise TypeError(f"values: dtype {V.dtype}; tilegemm's BSR blocks are float32")
        if len(V.shape) != 3:
            raise ValueError(f"values: shape {V.shape}; BSR values are nnzb x R x C (3-D)")
        nnzb, block_rows, block_cols = V.shape
        if V.strides != tuple(_arrays._contiguous_strides(V.shape)) and nnzb > 0 and block_rows * block_cols > 1:
            raise ValueError(f"values: strides {V.strides}; the blocks must be contiguous (nnzb x R x C)")
        crow = describe_index("crow_indices", crow_indices, s or 0)
        col = describe_index("col_indices", col_indices, s or 0)
        if crow.int64 != col.int64:
            raise TypeError("col_indices: int64 while crow_indices is int32 (or the reverse); "
                            "use one index type")
        if col.length != nnzb:
            raise ValueError(f"col_indices: {col.length} entries, but values holds {nnzb} blocks")
        if len(shape) != 2:
            raise ValueError(f"shape: {tuple(shape)}; a BSR matrix is 2-D (rows, cols)")
        rows, cols = int(shape[0]), int(shape[1])
        if block_rows > 0 and rows % block_rows == 0 and crow.length != rows // block_rows + 1:
            raise ValueError(f"crow_indices: {crow.length} entries, expected rows / R + 1 = "
                             f"{rows // block_rows + 1}")
        device = next((d for d in (V.device, crow.device, col.device) if d >= 0), -1)
        if s is None:
            s = _arrays.current_stream(Array(V.address, V.shape, V.strides, device, V.framework, V.source), None)
        self._handle = _tilegemm.bsr_from_device(V.address, col.address, crow.address, crow.int64, rows, cols,
                                                 block_rows, block_cols, nnzb, s, device, validate)
        # The handle borrows the blocks (and int32 indices): pin their owners to it.
        self._handle.sources = (crow_indices, col_indices, values)
        self._values = values
        # Plain attributes (torch.compile reads them while tracing; it cannot call into the handle).
        self._shape = (rows, cols)
        self._blocksize = (block_rows, block_cols)
        self._nnzb = nnzb
        self._device = self._handle.device
        self._framework = V.framework
        self._torch_arrays = None
        if V.framework == "torch":  # ready before torch.compile traces a product with it
            self.torch_arrays()

    @classmethod
    def from_torch(cls, w: Any, *, validate: bool = True) -> "BsrMatrix":
        """From a 2-D torch.sparse_bsr_tensor on a CUDA device (int32 or int64 indices)."""
        torch = _arrays._torch_module()
        if torch is None or not isinstance(w, torch.Tensor) or w.layout != torch.sparse_bsr:
            raise TypeError(f"w: a {type(w).__name__} is not a torch.sparse_bsr_tensor")
        if w.dim() != 2:
            raise ValueError(f"w: a {w.dim()}-D BSR tensor; tilegemm takes 2-D (no batch dims)")
        return cls(w.crow_indices(), w.col_indices(), w.values(), tuple(w.shape), validate=validate)

    @property
    def shape(self) -> Tuple[int, int]:
        return self._shape

    @property
    def blocksize(self) -> Tuple[int, int]:
        return self._blocksize

    @property
    def nnzb(self) -> int:
        return self._nnzb

    @property
    def max_row_blocks(self) -> int:
        """Blocks in the longest block row (the skew the tiled kernels balance)."""
        return self._handle.max_row_blocks

    def torch_arrays(self):
        """(values, block_indices int32, index_pointer int32, row_order int32, row_lengths on the
        CPU) as torch tensors: what the torch custom ops take."""
        if self._torch_arrays is None:
            import torch

            h = self._handle
            indices, pointer, order = (torch.from_dlpack(a) for a in h.prepared_arrays())
            lengths = torch.tensor(h.row_lengths, dtype=torch.int32)
            # A fresh alias of the blocks: w.values() of a torch BSR tensor is a view whose base is
            # the sparse tensor, which torch.compile would try (and fail) to rebuild it from.
            values = torch.from_dlpack(self._values.__dlpack__() if _arrays.is_torch_tensor(self._values)
                                       else self._values)
            self._torch_arrays = (values, indices, pointer, order, lengths)
        return self._torch_arrays

    def __repr__(self) -> str:
        r, c = self.shape
        br, bc = self.blocksize
        return f"tilegemm.BsrMatrix(shape=({r}, {c}), blocksize=({br}, {bc}), nnzb={self.nnzb})"


def as_bsr(w: Any, name: str = "w") -> BsrMatrix:
    """w itself, or the BsrMatrix prepared once for a torch.sparse_bsr_tensor and cached on it
    (rebuilt when its arrays change), so repeated products do no conversion."""
    if isinstance(w, BsrMatrix):
        return w
    torch = _arrays._torch_module()
    if torch is not None and isinstance(w, torch.Tensor) and w.layout == torch.sparse_bsr:
        crow, col, values = w.crow_indices(), w.col_indices(), w.values()
        key = (crow.data_ptr(), col.data_ptr(), values.data_ptr(), tuple(w.shape), tuple(values.shape))
        cached = getattr(w, "_tilegemm_bsr", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        prepared = BsrMatrix.from_torch(w)
        try:
            w._tilegemm_bsr = (key, prepared)
        except (AttributeError, RuntimeError):
            pass  # a tensor that takes no attributes: prepared per call
        return prepared
    raise TypeError(f"{name}: a {type(w).__module__}.{type(w).__name__}; pass a tilegemm.BsrMatrix or a "
                    "torch.sparse_bsr_tensor")


def _dense_rows(name: str, x: Array) -> Tuple[int, int, int]:
    """(rows, cols, ld) of a row-major dense operand; a 3-D (batch, rows, cols) array whose
    batches are stacked rows ([B, T, K] activations) counts as batch * rows rows."""
    if x.shape[-1] > 1 and x.strides[-1] != 1:
        raise ValueError(f"{name}: strides {x.strides}; the BSR products take row-major dense "
                         "operands (unit stride along the last axis): pass a contiguous copy")
    rows, cols = x.shape[-2], x.shape[-1]
    ld = x.strides[-2] if rows > 1 else max(cols, 1)
    if len(x.shape) == 3:
        batch = x.shape[0]
        if batch > 1 and rows > 0 and x.strides[0] != rows * ld:
            raise ValueError(f"{name}: strides {x.strides}; a 3-D operand must stack its batches "
                             "as rows (reshape-able to 2-D without a copy)")
        rows *= batch
    return rows, cols, max(ld, 1)


def _product(xwt: bool, x: Any, w: Any, out: Any, alpha: float, beta: float, kernel: Any,
             stream: Any):
    W = as_bsr(w)
    user_stream = _arrays.stream_handle(stream) if stream is not None else None
    X = describe("x", x, user_stream or 0)
    s = user_stream if user_stream is not None else _arrays.current_stream(X, None)
    x_rows, x_cols, ldx = _dense_rows("x", X)
    w_rows, w_cols = W.shape
    if xwt:  # Y (x_rows x w_rows) = X (x_rows x k) W^T
        if x_cols != w_cols:
            raise ValueError(f"x: {x_cols} columns, but w is {w_rows} x {w_cols} (x @ w.T needs {w_cols})")
        m, n, k = x_rows, w_rows, w_cols
        out_shape = X.shape[:-1] + (w_rows,)
    else:  # Y (w_rows x x_cols) = W X (w_cols x x_cols)
        if len(X.shape) != 2:
            raise ValueError(f"x: shape {X.shape}; bsr_mm takes a 2-D x")
        if x_rows != w_cols:
            raise ValueError(f"x: {x_rows} rows, but w is {w_rows} x {w_cols} (w @ x needs {w_cols})")
        m, n, k = w_rows, x_cols, w_cols
        out_shape = (w_rows, x_cols)
    if X.device >= 0 and X.device != W._device:
        raise ValueError(f"x: on CUDA device {X.device}, but w is on device {W._device}")
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta} scales out's contents; pass out= (or beta=0)")
        result = _arrays.new_output(X, out_shape, s)
        Y, finish = result.target, result.finish
    else:
        Y, finish = describe("out", out, s), (lambda: out)
        if tuple(Y.shape) != tuple(out_shape):
            raise ValueError(f"out: shape {tuple(Y.shape)}, expected {tuple(out_shape)}")
    _, _, ldy = _dense_rows("out", Y)
    _tilegemm.bsr_product(xwt, m, n, k, float(alpha), X.address, ldx, W._handle, float(beta), Y.address,
                          ldy, s, str(kernel))
    return finish()


def bsr_linear(x: Any, w: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0,
               kernel: Any = "auto", stream: Any = None):
    """Y = alpha * x @ w.T + beta * out, w block-sparse (a tilegemm.BsrMatrix or a
    torch.sparse_bsr_tensor), x a row-major float32 CUDA array (2-D, or 3-D [batch, rows, k]).
    The layer of torch.nn.functional.linear(x, w) without bias. kernel: "auto" or a BSR kernel
    (1-4 or its name, docs/sparse.md)."""
    if _arrays.is_torch_tensor(x):
        from . import _torch_ops

        if _torch_ops.compiling():
            return _torch_ops.bsr_traced(True, x, as_bsr(w), out, alpha, beta, kernel)
    return _product(True, x, w, out, alpha, beta, kernel, stream)


def bsr_mm(w: Any, x: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0,
           kernel: Any = "auto", stream: Any = None):
    """Y = alpha * w @ x + beta * out, w block-sparse (tilegemm.BsrMatrix or torch BSR tensor),
    x a row-major 2-D float32 CUDA array (cuSPARSE's bsrmm)."""
    if _arrays.is_torch_tensor(x):
        from . import _torch_ops

        if _torch_ops.compiling():
            return _torch_ops.bsr_traced(False, x, as_bsr(w), out, alpha, beta, kernel)
    return _product(False, x, w, out, alpha, beta, kernel, stream)


def bsr_prepared_product(xwt: bool, x, values, block_indices, index_pointer, row_order, row_lengths,
                         rows: int, cols: int, out, alpha: float, beta: float, kernel: str):
    """The product on arrays prepared by BsrMatrix (torch tensors; the custom ops' body)."""
    X = describe("x", x)
    s = _arrays.current_stream(X, None)
    x_rows, x_cols, ldx = _dense_rows("x", X)
    nnzb, block_rows, block_cols = values.shape
    if xwt:
        m, n, k = x_rows, rows, cols
    else:
        m, n, k = rows, x_cols, cols
    Y = describe("out", out, s)
    _, _, ldy = _dense_rows("out", Y)
    _tilegemm.bsr_product_prepared(xwt, m, n, k, float(alpha), X.address, ldx, values.data_ptr(),
                                   block_indices.data_ptr(), index_pointer.data_ptr(), rows, cols,
                                   block_rows, block_cols, nnzb, row_order.data_ptr(), row_lengths,
                                   float(beta), Y.address, ldy, s, X.device, str(kernel))
