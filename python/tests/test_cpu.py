"""What works without a GPU: import, argument errors named before anything runs, the stride
mapping, the no-GPU message."""
import numpy as np
import pytest

import tilegemm
from tilegemm import _arrays
from conftest import HAS_GPU, FakeCudaArray


def test_import_and_metadata():
    assert "matmul" in tilegemm.__all__
    assert tilegemm.ladder_levels()[0] and len(tilegemm.ladder_levels()) == 7
    assert tilegemm.compiled_archs()  # e.g. ['90a']
    assert tilegemm.device_count() >= 0


@pytest.mark.parametrize(
    "rows, cols, s0, s1, expected",
    [
        (4, 3, 3, 1, (False, 3)),  # row-major, contiguous
        (4, 3, 8, 1, (False, 8)),  # row-major, padded rows
        (4, 3, 1, 4, (True, 4)),  # column-major: Op.T of the stored 3 x 4 row-major matrix
        (4, 3, 1, 7, (True, 7)),  # column-major, padded
        (1, 5, 99, 1, (False, 5)),  # one row: its row stride does not matter
        (5, 1, 2, 77, (False, 2)),  # one column, rows 2 apart
        (1, 1, 0, 0, (False, 1)),
        (0, 3, 3, 1, (False, 3)),
        (3, 0, 1, 1, (False, 1)),
    ],
)
def test_blas_matrix_mapping(rows, cols, s0, s1, expected):
    assert tuple(_arrays.blas_matrix("a", rows, cols, s0, s1)) == expected


@pytest.mark.parametrize("s0, s1", [(0, 1), (1, 0), (2, 2), (-3, 1), (2, 1)])
def test_blas_matrix_refuses_inexpressible_strides(s0, s1):
    with pytest.raises(ValueError, match=r"^b: strides"):
        _arrays.blas_matrix("b", 4, 3, s0, s1)


def test_numpy_arrays_are_refused_naming_the_argument():
    a = np.ones((4, 4), dtype=np.float32)
    with pytest.raises(TypeError, match=r"^a: .*not CUDA"):
        tilegemm.matmul(a, a)


def test_unknown_objects_are_refused():
    with pytest.raises(TypeError, match=r"^b: a builtins.list is not a CUDA array"):
        tilegemm.matmul(FakeCudaArray((2, 2)), [[1.0]])


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(a=FakeCudaArray((4, 4), "<f8")), TypeError, r"^a: dtype float64|^a: dtype <f8"),
        (dict(b=FakeCudaArray((5, 4))), ValueError, r"^b: shape \(5, 4\) does not fit a"),
        (dict(a=FakeCudaArray((4,))), ValueError, r"^a: a 1-D array"),
        (dict(a=FakeCudaArray((2, 2, 2, 2))), ValueError, r"^a: a 4-D array"),
        (dict(beta=0.5), ValueError, r"^beta: 0.5 scales out's contents"),
        (dict(a=FakeCudaArray((4, 4), strides=(0, 4))), ValueError, r"^a: strides \(0, 1\)"),
        (dict(out=FakeCudaArray((4, 5), address=0x7F1000000000)), ValueError, r"^out: shape \(4, 5\), expected \(4, 4\)"),
        (dict(a=FakeCudaArray((3, 4, 4)), b=FakeCudaArray((2, 4, 4), address=0x7F2000000000)), ValueError,
         r"^b: batch 2 does not broadcast with a's batch 3"),
        (dict(stream="fast"), TypeError, r"^stream: a str is not a CUDA stream"),
    ],
)
def test_matmul_argument_errors(kwargs, error, pattern):
    args = dict(a=FakeCudaArray((4, 4)), b=FakeCudaArray((4, 4), address=0x7F3000000000))
    args.update(kwargs)
    a, b = args.pop("a"), args.pop("b")
    with pytest.raises(error, match=pattern):
        tilegemm.matmul(a, b, **args)


def test_unknown_kernel_is_named():
    out = FakeCudaArray((4, 4), address=0x7F1000000000)
    with pytest.raises(ValueError, match="kernel"):
        tilegemm.matmul(FakeCudaArray((4, 4)), FakeCudaArray((4, 4), address=0x7F3000000000), out=out,
                        kernel="fastest")


def test_unknown_math_is_named():
    out = FakeCudaArray((4, 4), address=0x7F1000000000)
    with pytest.raises(ValueError, match=r"^math: unknown value 'tf32' \(expected fp32"):
        tilegemm.matmul(FakeCudaArray((4, 4)), FakeCudaArray((4, 4), address=0x7F3000000000), out=out,
                        math="tf32")


@pytest.mark.skipif(HAS_GPU, reason="checks the message given without a GPU")
def test_without_gpu_a_product_says_so():
    out = FakeCudaArray((4, 4), address=0x7F1000000000)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        tilegemm.matmul(FakeCudaArray((4, 4)), FakeCudaArray((4, 4), address=0x7F3000000000), out=out)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        tilegemm.device_info()


@pytest.mark.skipif(HAS_GPU, reason="checks the message given without a GPU")
def test_without_gpu_a_bsr_matrix_says_so():
    crow = FakeCudaArray((3,), "<i8", address=0x7F4000000000)
    col = FakeCudaArray((2,), "<i8", address=0x7F5000000000)
    values = FakeCudaArray((2, 2, 2), address=0x7F6000000000)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        tilegemm.BsrMatrix(crow, col, values, (4, 4))


@pytest.mark.parametrize(
    "crow, col, values, shape, error, pattern",
    [
        (((3,), "<i2"), ((2,), "<i8"), ((2, 2, 2), "<f4"), (4, 4), TypeError, r"^crow_indices: dtype"),
        (((3,), "<i8"), ((2,), "<i4"), ((2, 2, 2), "<f4"), (4, 4), TypeError, r"^col_indices: int64 while"),
        (((3,), "<i8"), ((2,), "<i8"), ((2, 4), "<f4"), (4, 4), ValueError, r"^values: shape \(2, 4\)"),
        (((3,), "<i8"), ((3,), "<i8"), ((2, 2, 2), "<f4"), (4, 4), ValueError, r"^col_indices: 3 entries"),
        (((4,), "<i8"), ((2,), "<i8"), ((2, 2, 2), "<f4"), (4, 4), ValueError, r"^crow_indices: 4 entries"),
        (((3,), "<i8"), ((2,), "<i8"), ((2, 2, 2), "<f8"), (4, 4), TypeError, r"^values: dtype"),
        (((3, 1), "<i8"), ((2,), "<i8"), ((2, 2, 2), "<f4"), (4, 4), ValueError, r"^crow_indices: a 2-D"),
    ],
)
def test_bsr_matrix_argument_errors(crow, col, values, shape, error, pattern):
    with pytest.raises(error, match=pattern):
        tilegemm.BsrMatrix(FakeCudaArray(*crow, address=0x7F4000000000), FakeCudaArray(*col, address=0x7F5000000000),
                           FakeCudaArray(*values, address=0x7F6000000000), shape)


def test_bsr_products_refuse_dense_weights():
    with pytest.raises(TypeError, match=r"^w: .*tilegemm.BsrMatrix"):
        tilegemm.bsr_linear(FakeCudaArray((4, 4)), FakeCudaArray((4, 4), address=0x7F3000000000))
