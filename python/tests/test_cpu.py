"""What works without a GPU: import, argument errors named before anything runs, the stride
mapping, the no-GPU message."""
import numpy as np
import pytest

import tilegemm
from tilegemm import _arrays, _matmul
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


class RefusingArrayInterface:
    """As a JAX bfloat16 array: __cuda_array_interface__ raises (it has no typestr for the type),
    DLPack answers (here for host memory)."""

    def __init__(self):
        self._host = np.ones((4, 4), dtype=np.float32)

    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("__cuda_array_interface__ is not supported for bfloat16 buffers.")

    def __dlpack__(self, stream=None):
        return self._host.__dlpack__()

    def __dlpack_device__(self):
        return self._host.__dlpack_device__()


def test_an_array_interface_that_raises_falls_back_to_dlpack():
    with pytest.raises(TypeError, match=r"^a: a test_cpu.RefusingArrayInterface on DLPack device type 1 \(not CUDA\)"):
        tilegemm.matmul(RefusingArrayInterface(), RefusingArrayInterface())


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
        (dict(activation="swish"), ValueError, r"^activation: 'swish' is not one of gelu, gelu-erf, gelu-tanh, "
         r"none, relu, silu"),
        (dict(bias=FakeCudaArray((5,), address=0x7F4000000000)), ValueError, r"^bias: shape \(5,\), expected \(4,\)"),
        (dict(bias=FakeCudaArray((4, 1), address=0x7F4000000000)), ValueError,
         r"^bias: shape \(4, 1\), expected \(4,\)"),
        (dict(bias=FakeCudaArray((4,), "<f8", address=0x7F4000000000)), TypeError, r"^bias: dtype"),
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
    with pytest.raises(ValueError, match=r"^math: unknown value 'bf16x3' \(expected fp32"):
        tilegemm.matmul(FakeCudaArray((4, 4)), FakeCudaArray((4, 4), address=0x7F3000000000), out=out,
                        math="bf16x3")


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


@pytest.mark.parametrize(
    "math, precision, expected",
    [
        (None, None, "fp32"),  # CuPy, JAX, any DLPack array: the library's default
        (None, "highest", "ffma"),  # torch's default: IEEE FP32 only
        (None, "high", "tf32"),  # TF32 products allowed, as torch's own matmul runs them
        (None, "medium", "tf32"),
        (None, "a-newer-setting", "fp32"),
        ("fp32", "highest", "fp32"),  # an explicit math always wins
        ("ffma", "high", "ffma"),
        ("ffma", None, "ffma"),
    ],
)
def test_resolve_math(math, precision, expected):
    assert _matmul.resolve_math(math, precision) == expected


def test_math_defaults_to_fp32_for_arrays_other_than_torch(monkeypatch):
    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs["math"])

    monkeypatch.setattr(_matmul._tilegemm, "sgemm", spy)
    monkeypatch.setattr(_matmul._tilegemm, "explain_choice", spy)
    a, b = FakeCudaArray((4, 4)), FakeCudaArray((4, 4), address=0x7F3000000000)
    out = FakeCudaArray((4, 4), address=0x7F1000000000)
    tilegemm.matmul(a, b, out=out)
    tilegemm.matmul(a, b, out=out, math="ffma")
    tilegemm.explain_choice(a, b)
    tilegemm.explain_choice(a, b, math="ffma")
    assert seen == ["fp32", "ffma", "fp32", "ffma"]


@pytest.mark.parametrize(
    "left, right, expected",
    [
        # a^T (B x k x m, a row-major) and grad (B x m x n, row-major): k x B*m times B*m x n
        (((3, 5, 4), (20, 1, 5)), ((3, 4, 6), (24, 6, 1)), (((5, 12), (1, 5)), ((12, 6), (6, 1)))),
        # a batch of one: its matrices as they are
        (((1, 5, 4), (20, 1, 5)), ((1, 4, 6), (24, 6, 1)), (((5, 4), (1, 5)), ((4, 6), (6, 1)))),
        # grad (B x m x n, row-major) side by side: each batch step is a whole matrix, not n columns
        (((3, 5, 4), (20, 4, 1)), ((3, 4, 6), (6, 1, 4)), None),
        # a broadcast (stride-0) batch never folds
        (((3, 5, 4), (0, 1, 5)), ((3, 4, 6), (24, 6, 1)), None),
        # column-major L whose side-by-side view would need a leading dimension >= its rows: 5 < 7
        (((3, 7, 4), (20, 1, 5)), ((3, 4, 6), (24, 6, 1)), None),
    ],
)
def test_batch_in_k(left, right, expected):
    assert _matmul.batch_in_k(left[0], left[1], right[0], right[1]) == expected


@pytest.mark.parametrize(
    "a, b, shape",
    [
        ((0, 4, 5), (5, 3), (0, 4, 3)),  # a batch of 0 against a 2-D operand: 0 products
        ((4, 5), (0, 5, 3), (0, 4, 3)),
        ((1, 4, 5), (0, 5, 3), (0, 4, 3)),
        ((1, 4, 5), (6, 5, 3), (6, 4, 3)),
        ((6, 4, 5), (5, 3), (6, 4, 3)),
        ((4, 5), (5, 3), (4, 3)),
    ],
)
def test_result_shape_broadcasts_the_batch(a, b, shape):
    A = _arrays.describe("a", FakeCudaArray(a))
    B = _arrays.describe("b", FakeCudaArray(b, address=0x7F3000000000))
    assert _matmul.operands(A, B).shape == shape


def test_activation_names():
    assert _matmul.activation_name(None) == "none"
    assert _matmul.activation_name("gelu") == "gelu-erf"  # torch's default GELU
    assert _matmul.activation_name("gelu-tanh") == "gelu-tanh"
    assert _matmul.activation_name("silu") == "silu"
    with pytest.raises(ValueError, match="^activation: 'GELU' is not one of"):
        _matmul.activation_name("GELU")
