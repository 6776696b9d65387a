"""Framework arrays as device addresses: torch tensors, CuPy arrays (and anything else with
``__cuda_array_interface__``) and any DLPack array, described by one record the products use.

A 2-D view maps onto the library's row-major BLAS form without a copy: a row-major view is
``Op.N`` with its row stride as the leading dimension, a column-major one (a transposed torch view)
is ``Op.T`` of the stored matrix. What cannot be expressed that way raises ValueError naming the
argument.
"""
from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional, Tuple

from . import _tilegemm

_DLPACK_CUDA = 2  # DLDeviceType kDLCUDA
_DLPACK_CUDA_MANAGED = 13
_DLPACK_FLOAT = 2  # DLDataTypeCode kDLFloat


class Array(NamedTuple):
    """One operand: its address, logical shape and element strides, batch, device and origin."""

    address: int
    shape: Tuple[int, ...]  # 2-D (rows, cols) or 3-D (batch, rows, cols)
    strides: Tuple[int, ...]  # in elements, same length as shape
    device: int  # CUDA ordinal, or -1 when the array does not say (current device)
    framework: str  # "torch", "cupy", "cuda_array_interface" or "dlpack"
    source: Any  # the caller's object (kept alive by the caller during the call)
    dtype: str = "float32"  # "float32", "bfloat16" or "float16" (matmul; BSR takes float32)


_torch = None  # the torch module, once an argument showed that the caller uses it


def _torch_module():
    # torch is only looked at when the caller has imported it: the package never imports it.
    # Cached in a global: torch.compile traces this code and must not walk sys.modules.
    global _torch
    if _torch is None:
        _torch = sys.modules.get("torch")
    return _torch


def is_torch_tensor(x: Any) -> bool:
    if not type(x).__module__.startswith("torch"):
        return False
    torch = _torch_module()
    return torch is not None and isinstance(x, torch.Tensor)


def _check_ndim(name: str, shape: Tuple[int, ...]) -> None:
    if len(shape) not in (2, 3):
        raise ValueError(
            f"{name}: a {len(shape)}-D array; tilegemm takes 2-D matrices or 3-D batches of them "
            f"(shape {tuple(shape)})")


_TORCH_DTYPES = {"torch.float32": "float32", "torch.bfloat16": "bfloat16", "torch.float16": "float16",
                 "torch.int32": "int32", "torch.int64": "int64"}
_TYPESTRS = {"f4": "float32", "f2": "float16", "i4": "int32", "i8": "int64"}
_DLPACK_DTYPES = {(2, 32, 1): "float32", (2, 16, 1): "float16", (4, 16, 1): "bfloat16", (0, 32, 1): "int32",
                  (0, 64, 1): "int64"}
_ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4, "int64": 8}
# The element types of matmul's arrays (FP32 accumulation for the 16-bit ones).
MATMUL_DTYPES = ("float32", "bfloat16", "float16")


class Raw(NamedTuple):
    """What any framework says about an array, before the checks of its role."""

    address: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    dtype: str  # "float32", "int32", "int64", or the framework's name of another type
    device: int
    framework: str
    source: Any


def _raw_torch(name: str, x: Any) -> Raw:
    torch = _torch_module()
    if x.layout != torch.strided:
        raise TypeError(f"{name}: a {x.layout} tensor; dense arguments take strided tensors "
                        "(block-sparse weights go to tilegemm.bsr_linear / bsr_mm)")
    dev = x.device
    if dev.type != "cuda":
        raise TypeError(f"{name}: a tensor on '{dev}'; tilegemm runs on CUDA tensors "
                        "(move it with .cuda())")
    dtype = _TORCH_DTYPES.get(str(x.dtype), str(x.dtype))
    return Raw(x.data_ptr(), tuple(x.shape), tuple(x.stride()), dtype, dev.index, "torch", x)


def _raw_cuda_array_interface(name: str, x: Any, cai: dict) -> Raw:
    typestr = cai.get("typestr", "")
    dtype = _TYPESTRS.get(typestr[1:], typestr) if len(typestr) == 3 else typestr
    shape = tuple(int(s) for s in cai["shape"])
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides_elems = tuple(_contiguous_strides(shape))
    else:
        size = _ITEMSIZE.get(dtype, 1)
        if any(int(s) % size for s in strides):
            raise ValueError(f"{name}: byte strides {tuple(strides)} are not whole elements")
        strides_elems = tuple(int(s) // size for s in strides)
    framework = "cupy" if type(x).__module__.startswith("cupy") else "cuda_array_interface"
    device = int(x.device.id) if framework == "cupy" else -1
    return Raw(int(cai["data"][0]), shape, strides_elems, dtype, device, framework, x)


def _raw_dlpack(name: str, x: Any, stream: int) -> Raw:
    device_type, _ = x.__dlpack_device__()
    if int(device_type) not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        raise TypeError(f"{name}: a {type(x).__module__}.{type(x).__name__} on DLPack device type "
                        f"{int(device_type)} (not CUDA); tilegemm runs on CUDA arrays")
    # The consumer names its stream so the producer can order its pending work before it
    # (DLPack: 1 is CUDA's legacy default stream).
    try:
        capsule = x.__dlpack__(stream=stream if stream else 1)
    except TypeError:
        capsule = x.__dlpack__()
    address, shape, strides, code, bits, lanes, _, dev = _tilegemm.dlpack_describe(capsule)
    dtype = _DLPACK_DTYPES.get((code, bits, lanes), f"DLPack type (code {code}, {bits} bits, {lanes} lanes)")
    return Raw(address, tuple(shape), tuple(strides), dtype, int(dev), "dlpack", x)


def _raw(name: str, x: Any, stream: int) -> Raw:
    if is_torch_tensor(x):
        return _raw_torch(name, x)
    if hasattr(x, "block_until_ready"):  # JAX: its work runs on its own streams
        x.block_until_ready()
    cai = None
    if not isinstance(x, type):
        try:
            cai = getattr(x, "__cuda_array_interface__", None)
        except Exception:  # JAX refuses it for bfloat16 (older JAX with XlaRuntimeError): DLPack describes those
            cai = None
    if cai is not None:
        return _raw_cuda_array_interface(name, x, cai)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _raw_dlpack(name, x, stream)
    raise TypeError(f"{name}: a {type(x).__module__}.{type(x).__name__} is not a CUDA array; "
                    "tilegemm takes torch tensors, CuPy arrays or any DLPack CUDA array")


def describe(name: str, x: Any, stream: int = 0, dtypes: Tuple[str, ...] = ("float32",)) -> Array:
    """A matrix (2-D) or batch of matrices (3-D) argument of one of `dtypes`; TypeError/ValueError
    naming it when it cannot be used."""
    r = _raw(name, x, stream)
    if r.dtype not in dtypes:
        raise TypeError(f"{name}: dtype {r.dtype} is not supported here; this takes "
                        + " or ".join(dtypes))
    _check_ndim(name, r.shape)
    return Array(r.address, r.shape, r.strides, r.device, r.framework, r.source, r.dtype)


def describe_vector(name: str, x: Any, stream: int, dtypes: Tuple[str, ...], length: int) -> Array:
    """A contiguous 1-D array of `length` elements of one of `dtypes` (a fused epilogue's bias)."""
    r = _raw(name, x, stream)
    if r.dtype not in dtypes:
        raise TypeError(f"{name}: dtype {r.dtype} is not supported here; this takes " + " or ".join(dtypes))
    if len(r.shape) != 1 or r.shape[0] != length:
        raise ValueError(f"{name}: shape {tuple(r.shape)}, expected ({length},)")
    if length > 1 and r.strides[0] != 1:
        raise ValueError(f"{name}: stride {r.strides[0]}; the bias must be contiguous")
    return Array(r.address, r.shape, r.strides, r.device, r.framework, r.source, r.dtype)


class IndexArray(NamedTuple):
    address: int
    length: int
    int64: bool
    device: int


def describe_index(name: str, x: Any, stream: int = 0) -> IndexArray:
    """A contiguous 1-D int32 or int64 index array (BSR structure)."""
    r = _raw(name, x, stream)
    if r.dtype not in ("int32", "int64"):
        raise TypeError(f"{name}: dtype {r.dtype}; BSR indices are int32 or int64")
    if len(r.shape) != 1:
        raise ValueError(f"{name}: a {len(r.shape)}-D array; BSR indices are 1-D (shape {r.shape})")
    if r.shape[0] > 1 and r.strides[0] != 1:
        raise ValueError(f"{name}: stride {r.strides[0]}; BSR indices must be contiguous")
    return IndexArray(r.address, r.shape[0], r.dtype == "int64", r.device)


class BlasMatrix(NamedTuple):
    """A stored matrix in the library's row-major form: op(stored) is the logical matrix."""

    transposed: bool
    ld: int


def blas_matrix(name: str, rows: int, cols: int, row_stride: int, col_stride: int) -> BlasMatrix:
    """The row-major (Op.N, ld = row stride) or transposed (Op.T, ld = column stride) form of a
    rows x cols view. Strides of size-1 dimensions do not matter (frameworks give them any value)."""
    if cols <= 1 or col_stride == 1:
        ld = row_stride if rows > 1 else max(cols, 1)
        if rows <= 1 or ld >= max(cols, 1):
            return BlasMatrix(False, max(ld, 1))
    if rows <= 1 or row_stride == 1:
        ld = col_stride if cols > 1 else max(rows, 1)
        if cols <= 1 or ld >= max(rows, 1):
            return BlasMatrix(True, max(ld, 1))
    raise ValueError(
        f"{name}: strides ({row_stride}, {col_stride}) for shape ({rows}, {cols}) are not a matrix "
        "with unit stride along one axis and a leading dimension along the other; pass a "
        "contiguous copy (e.g. .contiguous())")


def batch_of(a: Array) -> Tuple[int, int]:
    """(batch count, batch stride in elements); (1, 0) for a 2-D array."""
    if len(a.shape) == 2:
        return 1, 0
    return a.shape[0], (a.strides[0] if a.shape[0] > 1 else 0)


def current_stream(a: Array, stream: Optional[Any]) -> int:
    """The CUDA stream to run on: `stream` when given (an int handle, or an object with
    `cuda_stream`, `ptr` or `__cuda_stream__`), else the caller's framework's current stream
    (torch, CuPy), else 0 (the legacy default stream)."""
    if stream is not None:
        return stream_handle(stream)
    if a.framework == "torch":
        return torch_stream(a.device)
    if a.framework == "cupy":
        import cupy  # present: the array is a CuPy array

        return int(cupy.cuda.get_current_stream().ptr)
    return 0


def torch_stream(device: int) -> int:
    """torch's current stream on `device` (what torch's own ops would run on)."""
    torch = _torch_module()
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return int(raw(device))
    return int(torch.cuda.current_stream(device).cuda_stream)


def stream_handle(stream: Any) -> int:
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream: a {type(stream).__name__} is not a CUDA stream (pass an int handle, "
                    "a torch.cuda.Stream or a cupy.cuda.Stream)")


class Output(NamedTuple):
    """A result array to write: `target` is what the product writes, `finish()` what the caller
    gets back (the same object, except for frameworks that only take foreign memory through
    DLPack once it holds its final values)."""

    target: Array
    finish: Any


def new_output(a: Array, shape: Tuple[int, ...], stream: int) -> Output:
    """A new array of `shape` and a's dtype on a's device, of a's framework."""
    if a.framework == "torch":
        torch = _torch_module()
        t = torch.empty(shape, dtype=getattr(torch, a.dtype), device=a.source.device)
        return Output(describe("out", t, dtypes=MATMUL_DTYPES), lambda: t)
    if a.framework == "cupy" and a.dtype != "bfloat16":  # CuPy has no bfloat16 type
        import cupy

        with cupy.cuda.Device(a.device):
            c = cupy.empty(shape, dtype=getattr(cupy, a.dtype))
        return Output(describe("out", c, dtypes=MATMUL_DTYPES), lambda: c)
    namespace = getattr(a.source, "__array_namespace__", None)
    if namespace is None:
        raise ValueError(f"out: a {type(a.source).__name__} has no array namespace to allocate the "
                         "result in; pass out=")
    rows = 1
    for s in shape[:-1]:
        rows *= s
    # A buffer of a's element type (DLPack float32 (2, 32, 1), float16 (2, 16, 1), bfloat16 (4, 16, 1)):
    # the framework takes it as an array of a's dtype.
    capsule, address = _tilegemm.empty_device(rows, shape[-1], a.device, a.dtype)
    buffer = _DeviceBuffer(capsule, a.device)
    strides = tuple(_contiguous_strides(shape))

    def finish():
        # The framework may copy the buffer as soon as it sees it: hand it over complete.
        _tilegemm.stream_synchronize(stream)
        try:
            result = namespace().from_dlpack(buffer)
        except (BufferError, TypeError, ValueError) as e:
            raise TypeError(f"out: {type(a.source).__module__} did not take the {a.dtype} result through "
                            f"DLPack ({e}); pass out=") from e
        return result.reshape(shape)

    return Output(Array(address, tuple(shape), strides, a.device, "dlpack", buffer, a.dtype), finish)


class _DeviceBuffer:
    """A DLPack capsule from the extension behind the __dlpack__ protocol frameworks ask for."""

    def __init__(self, capsule, device: int):
        self._capsule = capsule
        self._device = max(device, 0)

    def __dlpack__(self, stream=None, **_):
        return self._capsule

    def __dlpack_device__(self):
        return (_DLPACK_CUDA, self._device)


def _contiguous_strides(shape: Tuple[int, ...]):
    out = []
    step = 1
    for s in reversed(shape):
        out.append(step)
        step *= max(s, 1)
    return reversed(out)
