"""CuPy and JAX arrays in, the same framework's array out (JAX also in bfloat16 and float16)."""
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


def jax_gpu():
    """(jax, its first GPU device), or skip."""
    jax = pytest.importorskip("jax")
    try:
        return jax, jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX has no GPU backend here")


def test_jax_in_jax_out():
    jax, gpu = jax_gpu()
    a = np.random.default_rng(3).standard_normal((64, 100)).astype(np.float32)
    b = np.random.default_rng(4).standard_normal((100, 33)).astype(np.float32)
    ja, jb = jax.device_put(a, gpu), jax.device_put(b, gpu)
    c = tilegemm.matmul(ja, jb)
    assert isinstance(c, jax.Array) and c.shape == (64, 33)
    check(np.asarray(c), a, b)


@pytest.mark.parametrize("dtype, unit_roundoff", [("bfloat16", 2.0 ** -8), ("float16", 2.0 ** -11)])
def test_jax_16bit_in_jax_16bit_out(dtype, unit_roundoff):
    # JAX arrays cannot be written through out=: tilegemm allocates the 16-bit result and hands it
    # over through DLPack (bfloat16 has no __cuda_array_interface__ typestr; DLPack describes it).
    jax, gpu = jax_gpu()
    jdtype = jax.numpy.dtype(getattr(jax.numpy, dtype))  # jax.numpy.bfloat16 is ml_dtypes' type
    rng = np.random.default_rng(7)

    def put(*shape):
        return jax.device_put(jax.numpy.asarray(rng.uniform(-1, 1, shape), dtype=jdtype), gpu)

    for a, b in ((put(70, 300), put(300, 45)), (put(3, 20, 64), put(64, 33))):  # 2-D, and a batch @ 2-D
        c = tilegemm.matmul(a, b)
        assert isinstance(c, jax.Array)
        assert c.dtype == jdtype and c.shape == a.shape[:-1] + b.shape[-1:]
        # The same 16-bit values in float64; FP32 accumulation over k terms, then one rounding to 16 bits.
        want = np.asarray(a).astype(np.float64) @ np.asarray(b).astype(np.float64)
        got = np.asarray(c).astype(np.float64)
        k = a.shape[-1]
        scale = np.abs(want).max()
        bound = 2 * unit_roundoff * scale + 4 * 1.2e-7 * (k + 2) * max(scale, 1.0)
        assert np.abs(got - want).max() <= bound


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_jax_empty_result(dtype):
    # A result with no elements still gets a device buffer to hand over (a null one cannot be).
    jax, gpu = jax_gpu()
    jdtype = jax.numpy.dtype(getattr(jax.numpy, dtype))
    a = jax.device_put(jax.numpy.zeros((0, 16), dtype=jdtype), gpu)
    b = jax.device_put(jax.numpy.ones((16, 9), dtype=jdtype), gpu)
    c = tilegemm.matmul(a, b)
    assert isinstance(c, jax.Array) and c.shape == (0, 9) and c.dtype == jdtype
