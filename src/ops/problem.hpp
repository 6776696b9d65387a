// The operation model's description of one product (docs/architecture.md): the pointer-free facts a
// config's legality, cost and tuning key depend on (Problem), and apart from them what a launch needs
// (Operands). Pure host code without CUDA headers: the CPU tests build problems by hand.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
class DeviceBsrMatrix;

namespace ops {

enum class OpKind : int {
  Gemm = 0,  // C = alpha * op(A) op(B) + beta * C
  BsrXwt,    // Y = alpha * X W^T + beta * Y, W block-sparse (bsr.hpp)
  BsrWx,     // Y = alpha * W X + beta * Y
};
const char* to_string(OpKind k);  // "gemm", "bsr-xwt", "bsr-wx"

// What happens to the accumulated product before it is stored. Only the linear combination exists.
enum class EpilogueKind : int { LinearCombination = 0 };

// W of a block-sparse product: what its families' legality, model and key depend on (the row lengths
// themselves, which the tiled kernels' launch plan reads, travel with the operands).
struct BsrFacts {
  int block_r = 0, block_c = 0;  // R x C blocks
  int64_t block_rows = 0;        // W's block rows
  int64_t nnzb = 0;              // stored blocks
  int64_t longest_row = 0;       // stored blocks of the longest block row
  bool operator==(const BsrFacts& o) const {
    return block_r == o.block_r && block_c == o.block_c && block_rows == o.block_rows && nnzb == o.nnzb &&
           longest_row == o.longest_row;
  }
};

// One product, reduced to canonical form. GEMM: row-major, column-major calls swapped onto it
// (C^T = op(B)^T op(A)^T over the same memory). BSR: m x n x k of the public product (bsr.hpp), A is
// X, B is W (its block data), C is Y.
struct Problem {
  OpKind kind = OpKind::Gemm;
  DType a_type = DType::F32, b_type = DType::F32, c_type = DType::F32;
  Math math = Math::Fp32;  // the arithmetic Auto may pick (types.hpp)
  int64_t m = 0, n = 0, k = 0;
  // Products of one call, each the m x n x k product above (GEMM: strided batches, Operands::stride_*).
  // Families that run them in one launch see it (Family::runs_batches); the others are asked about one
  // product (launch_problem, family.hpp) and run once per batch.
  int64_t batch = 1;
  bool trans_a = false, trans_b = false;
  // Per operand, in BYTES, each a power of two <= 16: the alignment of its address together with its
  // row pitch (16: every row starts on a 16-byte boundary), of its row pitch alone, and its address's
  // offset from a 16-byte boundary (rows all at one offset when the pitch is 16-byte aligned).
  int align_a = 16, align_b = 16, align_c = 16;
  int pitch_align_a = 16, pitch_align_b = 16;
  int offset_a = 0, offset_b = 0;
  bool beta_zero = true;  // C is not read
  EpilogueKind epilogue = EpilogueKind::LinearCombination;
  // GEMM's fused epilogue after alpha * AB + beta * C (tilegemm::Epilogue), on the canonical C: a
  // column-major call's per-row bias is per column here.
  BiasKind bias = BiasKind::None;
  DType bias_type = DType::F32;
  Activation activation = Activation::None;
  bool plain_epilogue() const { return bias == BiasKind::None && activation == Activation::None; }
  bool offsets_fit_32bit = true;  // A and B each span at most 2^31 - 1 elements
  BsrFacts bsr;                   // the BSR kinds only

  bool operator==(const Problem& o) const;
};
// BSR products: the dense batch J (the columns of Y^T = W X^T for xwt, of Y = W X for wx), and which
// rows take 16-byte accesses: X's (address and pitch), W's blocks (block data aligned, C % 4 == 0) and
// Y's (xwt stores along W's rows: also R % 4 == 0). The kernels' vector paths and the key's x16/y16.
inline int64_t bsr_dense_batch(const Problem& p) { return p.kind == OpKind::BsrXwt ? p.m : p.n; }
inline bool bsr_x_vec(const Problem& p) { return p.align_a == 16; }
inline bool bsr_w_vec(const Problem& p) { return p.align_b == 16 && p.bsr.block_c % 4 == 0; }
inline bool bsr_y_vec(const Problem& p) {
  return p.align_c == 16 && (p.kind != OpKind::BsrXwt || p.bsr.block_r % 4 == 0);
}

// A hash of every field (the choice cache's key).
struct ProblemHash {
  size_t operator()(const Problem& p) const;
};

// The operands of one launch of a canonical problem: device pointers, leading dimensions (elements),
// the epilogue's scalars and the tile order of the tiled kernels. BSR: a is X, c is Y, w is W (b unused).
struct Operands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const DeviceBsrMatrix* w = nullptr;
  int64_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.0f, beta = 0.0f;
  Raster raster = Raster::Hilbert;
  // A batched GEMM launch (Problem::batch > 1): elements from one batch's A, B, C to the next's; 0 for A
  // or B: every batch reads the same matrix.
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  const void* bias = nullptr;  // Problem::bias's vector (every batch's)
};

// The largest power of two <= 16 dividing `v` (16 for 0).
int alignment_of(uint64_t v);

// "" when A and B are one 16-bit type (bf16 or f16) and C is that type or f32 (the tensor-core GEMM
// families' types, FP32 accumulation), else why not, naming the operand.
std::string sixteen_bit_gemm_types(const Problem& p);

// "f32" for an all-F32 product ("tf32" under Math::Tf32: its tuned entries apart), else "a.b.c" types
// ("bf16.bf16.f32"): the dtype field of keys and logs.
std::string dtype_text(const Problem& p);

}  // namespace ops
}  // namespace tilegemm
