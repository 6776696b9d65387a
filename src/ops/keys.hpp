// The tuning database's problem key of a product, in a stable text form (tune/database.hpp keys the
// device apart). For an F32 GEMM the text is the one used since the tuner's first database, so
// existing databases still apply: "gemm f32 4096x4096x4096 NN a16 b16 beta0", "bsr xwt f32
// 4096x4096x4096 b32x32 nnzb1638 long13 x16 y16 beta0".
#pragma once
#include <string>

#include "ops/problem.hpp"

namespace tilegemm {
namespace ops {

// "bsr xwt|wx <dtypes> MxNxK b<R>x<C> nnzb<stored blocks> long<longest block row> x<16|4> y<16|4>
// beta<0|1>" for a BSR product (x16: 16-byte copies of X and W rows; y16: 16-byte stores of Y).
// "gemm <dtypes> MxNxK <ops> a<copies> b<copies>[ same-shift] beta<0|1>[ batch<N>][ epi=<bias>+<act>]",
// canonical row-major sizes. <copies> of an F32 operand: 16 (rows 16-byte aligned), 4s (rows all at
// one offset from a 16-byte boundary), 4 (neither); of a narrower type, its alignment in bytes (and
// "s" likewise). "same-shift": A's and B's rows at the same offset. A batch count above 1 and a fused
// epilogue (canonical bias kind "row"/"column", then the activation: "epi=column+gelu-tanh") end the
// key, so a plain single product's key is the one used since the tuner's first database. The math is
// not part of the key: a tuned config is kept only where it can run the call (can_implement).
std::string problem_key(const Problem& p);
// p as one product without an epilogue: the key a batched or epilogue call falls back to when it has
// no tuned entry of its own (tuned_table.cpp).
Problem plain_single(const Problem& p);
// The operation kind of a stored key (its first words: "gemm", "bsr xwt", "bsr wx").
OpKind key_kind(const std::string& key);

}  // namespace ops
}  // namespace tilegemm
