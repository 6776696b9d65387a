"""CuPy and JAX arrays in, the same framework's array out."""
import numpy as np
import pytest

import tilegemm
from conftest import HAS_GPU

pytestmark = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")


def check(got, a, b):
    want = a.astype(np.float64) @ b.astype(np.float64)
    k = a.shape[1]
    assert np.max(np.abs(got - want)) <= 16 * 1.2e-7 * (k + 2) * max(np.abs(want).max(), 1.0)


def test_cupy_in_cupy_out():
    cupy = pytest.importorskip("cupy")
    a = np.random.default_rng(1).standard_normal((123, 77)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((77, 45)).astype(np.float32)
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    c = tilegemm.matmul(ca, cb.T.copy().T)  # a Fortran-ordered b: Op.T
    assert isinstance(c, cupy.ndarray) and c.shape == (123, 45)
    cupy.cuda.get_current_stream().synchronize()
    check(cupy.asnumpy(c), a, b)
    out = cupy.zeros((123, 45), dtype=cupy.float32)
    assert tilegemm.matmul(ca, cb, out=out) is out
    check(cupy.asnumpy(out), a, b)


def test_jax_in_jax_out():
    jax = pytest.importorskip("jax")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX has no GPU backend here")
    a = np.random.default_rng(3).standard_normal((64, 100)).astype(np.float32)
    b = np.random.default_rng(4).standard_normal((100, 33)).astype(np.float32)
    ja, jb = jax.device_put(a, gpu), jax.device_put(b, gpu)
    c = tilegemm.matmul(ja, jb)
    assert isinstance(c, jax.Array) and c.shape == (64, 33)
    check(np.asarray(c), a, b)
