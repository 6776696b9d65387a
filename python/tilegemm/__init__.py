"""tilegemm: fast FP32 matrix products on NVIDIA GPUs, dense and block-sparse, on torch tensors,
CuPy arrays or any DLPack CUDA array (docs/python.md).

    import torch, tilegemm
    x = torch.randn(4096, 1024, device="cuda")
    w = torch.randn(512, 1024, device="cuda")
    y = tilegemm.matmul(x, w.t())        # a torch tensor, on torch's current stream; w.t() is Op.T,
                                         # not a copy

Importing needs no GPU and no torch; a product without a GPU raises RuntimeError saying so.
"""
from . import _tilegemm
from ._bsr import BsrMatrix, bsr_linear, bsr_mm
from ._matmul import explain_choice, matmul

__all__ = ["matmul", "explain_choice", "bsr_linear", "bsr_mm", "BsrMatrix", "device_count",
           "device_info", "ladder_levels", "compiled_archs"]
__version__ = "0.1.0"


def device_count() -> int:
    """Visible CUDA devices (0 without a GPU; never raises)."""
    return _tilegemm.device_count()


def device_info() -> dict:
    """The current device: name, compute capability, SMs, memory, FP32 peak (TFLOP/s) and the
    memory bandwidth tilegemm takes as its peak (GB/s). RuntimeError without a GPU."""
    return _tilegemm.device_info()


def ladder_levels() -> list:
    """The names of the ladder kernels 1-7 (kernel= takes the number or the name)."""
    return _tilegemm.ladder_levels()


def compiled_archs() -> list:
    """CUDA architectures compiled into this build, e.g. ['90a']."""
    return _tilegemm.compiled_archs()
