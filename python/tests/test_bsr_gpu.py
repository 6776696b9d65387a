"""Block-sparse products from torch BSR tensors and tilegemm.BsrMatrix, against the dense product in
float64; device validation; torch.compile and CUDA graphs."""
import pytest

import tilegemm
from conftest import torch_cuda

torch = None


@pytest.fixture(autouse=True)
def _torch():
    global torch
    torch = torch_cuda()


def random_bsr(rows, cols, block, density, seed, skew=False, index_dtype=None):
    """A torch.sparse_bsr_tensor on the GPU with about `density` of its blocks stored (some block
    rows empty; with skew one block row full)."""
    gen = torch.Generator().manual_seed(seed)
    r, c = block
    mask = torch.rand(rows // r, cols // c, generator=gen) < density
    if skew and rows // r > 1:
        mask[1] = True
        mask[0] = False
    dense = torch.randn(rows, cols, generator=gen) * mask.repeat_interleave(r, 0).repeat_interleave(c, 1)
    w = dense.to_sparse_bsr(block).cuda()
    if index_dtype is not None:
        w = torch.sparse_bsr_tensor(w.crow_indices().to(index_dtype), w.col_indices().to(index_dtype),
                                    w.values(), w.shape)
    return w


def assert_close(got, want, k):
    bound = 4 * 1.2e-7 * (k + 2)
    scale = max(want.abs().max().item(), 1.0) if want.numel() else 1.0
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    assert err <= 4 * bound * scale, f"max error {err}"


CASES = [((64, 96), (16, 16), 0.3), ((128, 256), (32, 32), 0.2), ((256, 128), (64, 64), 0.5),
         ((96, 40), (8, 4), 0.4), ((30, 21), (3, 7), 0.5), ((64, 64), (1, 1), 0.1), ((64, 64), (16, 16), 0.0)]


@pytest.mark.parametrize("shape, block, density", CASES)
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("m", [1, 5, 16, 100])
def test_bsr_linear_and_mm_match_dense(shape, block, density, index_dtype, m):
    w = random_bsr(*shape, block, density, seed=shape[0] + m, skew=True,
                   index_dtype=getattr(torch, index_dtype))
    dense = w.to_dense().double()
    x = torch.randn(m, shape[1], device="cuda")
    assert_close(tilegemm.bsr_linear(x, w), x.double() @ dense.t(), shape[1])
    x2 = torch.randn(shape[1], m, device="cuda")
    assert_close(tilegemm.bsr_mm(w, x2), dense @ x2.double(), shape[1])


@pytest.mark.parametrize("kernel", ["auto", 1, 2, 3, 4])
def test_every_bsr_kernel_with_out_and_beta(kernel):
    w = tilegemm.BsrMatrix.from_torch(random_bsr(256, 192, (32, 16), 0.4, seed=5))
    x = torch.randn(48, 192, device="cuda")
    out = torch.randn(48, 256, device="cuda")
    want = 2.0 * (x.double() @ w_dense(w).t()) - 0.5 * out.double()
    tilegemm.bsr_linear(x, w, out=out, alpha=2.0, beta=-0.5, kernel=kernel)
    assert_close(out, want, 192)


def w_dense(w):
    values, indices, pointer, _, _ = w.torch_arrays()
    t = torch.sparse_bsr_tensor(pointer.long(), indices.long(), values, w.shape)
    return t.to_dense().double()


def test_three_d_activations():
    w = random_bsr(128, 64, (16, 16), 0.5, seed=9)
    x = torch.randn(4, 10, 64, device="cuda")
    y = tilegemm.bsr_linear(x, w)
    assert y.shape == (4, 10, 128)
    assert_close(y, x.double() @ w.to_dense().double().t(), 64)


def test_prepared_once_and_values_seen_in_place():
    w = random_bsr(128, 128, (16, 16), 0.5, seed=4)
    x = torch.randn(8, 128, device="cuda")
    tilegemm.bsr_linear(x, w)
    prepared = w._tilegemm_bsr[1]
    tilegemm.bsr_linear(x, w)
    assert w._tilegemm_bsr[1] is prepared  # no conversion on the second call
    w.values().mul_(2.0)  # in-place update of the blocks: used in place
    assert_close(tilegemm.bsr_linear(x, w), x.double() @ w.to_dense().double().t(), 128)


def test_bsr_matrix_from_cuda_arrays_and_validation():
    crow = torch.tensor([0, 1, 3], device="cuda")
    col = torch.tensor([1, 0, 1], device="cuda")
    values = torch.randn(3, 2, 2, device="cuda")
    w = tilegemm.BsrMatrix(crow, col, values, (4, 4))
    assert w.shape == (4, 4) and w.blocksize == (2, 2) and w.nnzb == 3 and w.max_row_blocks == 2
    dense = torch.sparse_bsr_tensor(crow, col, values, (4, 4)).to_dense().double()
    x = torch.randn(3, 4, device="cuda")
    assert_close(tilegemm.bsr_linear(x, w), x.double() @ dense.t(), 4)
    bad_col = torch.tensor([1, 1, 0], device="cuda")  # row 1 not increasing
    with pytest.raises(ValueError, match="block_indices|col_indices"):
        tilegemm.BsrMatrix(crow, bad_col, values, (4, 4))
    out_of_range = torch.tensor([1, 0, 2], device="cuda")
    with pytest.raises(ValueError, match="block_indices|col_indices"):
        tilegemm.BsrMatrix(crow, out_of_range, values, (4, 4))
    bad_crow = torch.tensor([0, 2, 3], device="cuda").flip(0)
    with pytest.raises(ValueError, match="index_pointer|crow_indices"):
        tilegemm.BsrMatrix(bad_crow, col, values, (4, 4))
    assert tilegemm.BsrMatrix(crow, col, values, (4, 4), validate=False).nnzb == 3


def test_bsr_argument_errors():
    w = random_bsr(64, 32, (16, 16), 0.5, seed=1)
    with pytest.raises(ValueError, match=r"^x: 16 columns"):
        tilegemm.bsr_linear(torch.randn(4, 16, device="cuda"), w)
    with pytest.raises(ValueError, match=r"^x: strides"):
        tilegemm.bsr_linear(torch.randn(32, 4, device="cuda").t(), w)
    with pytest.raises(TypeError, match=r"^x: a tensor on 'cpu'"):
        tilegemm.bsr_linear(torch.randn(4, 32), w)
    with pytest.raises(ValueError, match=r"^beta"):
        tilegemm.bsr_linear(torch.randn(4, 32, device="cuda"), w, beta=1.0)


def test_bsr_torch_compile_and_cuda_graph():
    w = tilegemm.BsrMatrix.from_torch(random_bsr(256, 128, (32, 32), 0.4, seed=2))
    dense = w_dense(w)
    x = torch.randn(64, 128, device="cuda")

    compiled = torch.compile(lambda x: torch.relu(tilegemm.bsr_linear(x, w)), fullgraph=True)
    assert_close(compiled(x), torch.relu(x.double() @ dense.t()), 128)

    y = torch.empty(64, 256, device="cuda")
    tilegemm.bsr_linear(x, w, out=y)  # warm-up
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        tilegemm.bsr_linear(x, w, out=y)
    x.copy_(torch.randn_like(x))
    g.replay()
    torch.cuda.synchronize()
    assert_close(y, x.double() @ dense.t(), 128)
