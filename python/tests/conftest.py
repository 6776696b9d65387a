"""Shared pieces of the Python tests: a stand-in CUDA array for the argument checks that need no
GPU, and the skip rules for the GPU tests (skipped, never passed, without a GPU or framework)."""
import contextlib
import os

import pytest

import tilegemm

# JAX takes most of the GPU's memory up front unless told not to.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

HAS_GPU = tilegemm.device_count() > 0


class FakeCudaArray:
    """Speaks __cuda_array_interface__ with a made-up address: enough for everything the package
    checks before the library touches the device."""

    def __init__(self, shape, typestr="<f4", strides=None, address=0x7F0000000000):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (address, False), "strides": strides, "version": 3}


def torch_cuda():
    """torch with a usable CUDA device, or skip."""
    if not HAS_GPU:
        pytest.skip("no CUDA device")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


def on_split_tensor_cores(config):
    """Whether an FP32 config runs 3xTF32 on tensor cores: level 7's tiles ("...:tf32x3...") or, on
    Hopper, level 8's ("wgmma-3xtf32:...")."""
    return "tf32x3" in config or config.startswith("wgmma-3xtf32:")


def on_tensor_cores(config):
    """Whether an FP32 config runs on tensor cores: 3xTF32 (on_split_tensor_cores) or, on Hopper
    under math = "tf32", level 8's TF32 kernel ("wgmma-tf32:...")."""
    return on_split_tensor_cores(config) or config.startswith("wgmma-tf32:")


@contextlib.contextmanager
def torch_at_highest_precision():
    """torch with a usable CUDA device (or skip) at torch's default float32 matmul precision,
    "highest" (tilegemm's default math follows it: FFMA); the caller's setting comes back after."""
    torch = torch_cuda()
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("highest")
    try:
        yield torch
    finally:
        torch.set_float32_matmul_precision(before)
