// Ladder level 8: GEMM on Hopper tensor cores (sm_90a): tiles loaded into 128-byte swizzled shared
// memory completing on mbarriers, one producer warpgroup and two (or three) consumer warpgroups
// issuing wgmma, a persistent grid over the output tiles in grouped order (docs/ladder.md, level 8).
//
//   C (m x n, row-major, OutT) = alpha * A (m x k) * B (k x n) + beta * C,
//   A and B in bf16 or f16 (kIn BF16, F16), FP32 accumulation, OutT the input type or float; or FP32
//   A and B, OutT float: kIn TF32, one TF32 product read from TMA's tiles as the 16-bit ones are
//   (B K-major: the launch makes a K-major copy of another first, split_b_tf32.cuh; an MN-major A
//   reaches wgmma through registers, register_a_main_loop), or
//   kIn TF32x3, FP32 accuracy by three TF32 products, A's fragments split in registers and B's TF32
//   parts made before the launch (wgmma_tf32.cuh, split_b_tf32.cuh).
//
// Each operand is stored K-major (A as m rows of k, B as n rows of k: B^T row-major) or MN-major
// (kAMn: A as k rows of m; kBMn: B as k rows of n); shared memory keeps the stored orientation and
// wgmma reads MN-major tiles through its transpose bits (hopper.cuh has the layouts).
//
// Block tile BM x BN x 64 (BM 64, 128 or 192, BN 32, 64, 128, 192 or 256): per k step the producer's
// one thread loads A's BM x 64 and B's BN x 64 tiles into stage st with TMA and arms full[st] with
// their bytes;
// each of the BM / 64 consumer warpgroups takes 64 rows of the tile and issues four m64nBNk16 wgmmas
// per stage, keeps one group in flight, and frees the stage before it (empty[]: every consumer
// arrives). 192 rows (128 columns) fill the SMs where 128-row tiles leave a partial wave (6272 x 512:
// 132 tiles of 192 x 128 against 98 of 128 x 256), 64 columns where 128 leave them idle (1024 x 768:
// 96 tiles of 128 x 64 against 48 of 128 x 128), 64 x 32 tiles (one consumer warpgroup) the lines of a
// long operand against 32 columns or fewer, twice the blocks of 128 x 64 streaming it (few-row
// products as C^T; a 32-column B tile is K-major: 32 of 16-bit C never leave through TMA stores,
// wgmma_tma_stores_fit). The producer runs ahead into the block's next
// tile while the consumers store this one. Rows, columns and k past the matrix are zeros from TMA's
// out-of-bounds fill; the stores are bounds-checked. C written over (beta == 0) with 16-byte aligned
// rows leaves through TMA stores from shared memory (store_slice_tma), which run on while the
// warpgroup starts its next tile. A and B are 16-byte aligned in address and
// leading dimension (TMA; the family packs others first, pack_16bit.cuh). k >= 1 (the family runs a
// product only when it reads A and B).
//
// Strided batches: p.batch products in one launch, the work units of batch b after those of batch
// b - 1 (the persistent grid walks across batches without a gap). The tensor maps are 3-D (inner,
// lines, batch): a block loads batch b's tiles at third coordinate b, or 0 for an operand every batch
// shares (stride 0, a map of one matrix); C, split-K's partial sums and 3xTF32's guard offset by batch.
//
// kCluster = 2: the blocks run in clusters of two on vertically adjacent tiles (rows m0 and m0 + 128,
// the same columns). Each block's producer loads its own A tile and half of the B tile, multicast to
// both blocks, so B's traffic from L2 halves; a stage is free when the consumers of both blocks have
// released it (empty[] counts the arrivals of both blocks' consumers, each arriving in both blocks).
//
// kPingPong: instead of splitting each tile's rows, the two consumer warpgroups take turns: warpgroup
// w runs the block's units j with j % 2 == w on all 128 rows (two m64 wgmmas per k16), and one's
// main loop runs while the other stores its tile, so the tensor cores do not wait for the epilogue.
// Named barriers hand the main loop over: a warpgroup starts its unit only after the other has taken
// the last stage of the previous one (its full-barrier phases then belong to this unit).
#pragma once
#include "kernels/common/host_device.hpp"
#include "kernels/common/hopper.cuh"
#include "kernels/common/fused_epilogue.cuh"
#include "kernels/common/griddep.cuh"
#include "kernels/common/out_convert.cuh"
#include "kernels/common/types_16bit.cuh"
#include "kernels/common/wgmma_tf32.cuh"
#include "kernels/gemm/wgmma_in.hpp"

namespace tilegemm {
namespace kernels {

// kWgmmaBK: the 16-bit elements of a 128-byte line, a stage's k step for 16-bit operands (FP32: 32,
// wgmma_bk). A block tile has BM = 64, 128 or 192 rows (wgmma_consumers, wgmma_in.hpp).
inline constexpr int kWgmmaBK = 64;

// kBPlanes: B's tile per stage is 1 or, for 3xTF32 (B's TF32 big and small parts), 2 planes of BN lines.
template <int BN, int kStages, int kBPlanes = 1, int BM = 128>
struct WgmmaSmem {
  unsigned short a[kStages][BM * kWgmmaBK];  // 128-byte lines, 1024-byte aligned stages
  unsigned short b[kStages][kBPlanes * BN * kWgmmaBK];
  // Per consumer warpgroup: 64 rows of 256 bytes of C on their way to global memory (store_tile).
  uint4 c_rows[wgmma_consumers(BM)][64 * 16];
  unsigned long long full[kStages], empty[kStages];
};
// Dynamic shared memory a launch takes: the stages, the barriers, and room to align to 1024 bytes.
template <int BN, int kStages, int kBPlanes = 1, int BM = 128>
TILEGEMM_HOST_DEVICE constexpr int wgmma_smem_bytes() {
  return static_cast<int>(sizeof(WgmmaSmem<BN, kStages, kBPlanes, BM>)) + 1024;
}

// Named barriers (0 is __syncthreads): ping-pong's handover 1 + w, each consumer warpgroup's store
// path 3 + w, all consumers together, and 3xTF32's guard per warpgroup.
inline constexpr int kBarHandover = 1, kBarStore = 3, kBarConsumers = 6, kBarGuard = 7;

struct WgmmaParams {
  void* c;
  int m, n, k;
  long long ldc;
  float alpha, beta;  // beta == 0: C is not read
  bool pairs;         // C's address and ldc keep column pairs aligned: one 2-element access per pair
  bool rows16;        // C's address and row pitch are multiples of 16 bytes: 16-byte row stores
  // C written over (beta == 0), rows16 and one k slice: the tiles leave through TMA stores of map_c
  // (store_slice_tma), overlapped with the warpgroup's next tile.
  bool tma_c;
  FusedEpilogue epi;  // bias and activation after alpha and beta (epilogue_in_registers, store_quad_fused)
  // Split-K: each tile's k steps in `splits` slices of kt_per_split (the last may be shorter, none
  // empty); with splits > 1 a slice writes its raw FP32 sums to partial + slice * m * ld_partial
  // (ld_partial a multiple of 4: 16-byte rows, partial 16-byte aligned) and split_reduce_16bit.cuh
  // makes C from them. With sum_in_cluster instead, the launch runs one block per unit in clusters of
  // `splits` (the slices of a tile, rank = slice) and sum_tile_in_cluster makes C (no partial).
  int splits, kt_per_split;
  float* partial;
  long long ld_partial;
  bool sum_in_cluster;
  // The product is C^T (m x n); C (n x m, ldc apart, the epilogue on it) gets C^T's (i, j) at (j, i):
  // from sum_tile_in_cluster (sum_in_cluster), or in one k slice from store_slice_transposed (TF32).
  bool c_transposed;
  // FP32 operands: A and B as stored (A as map_a reads it; map_b reads B's TF32 parts, split_b_tf32),
  // for the 3xTF32 guard's FFMA recomputation (ffma_tile), and the guard's key of B's parts per
  // 128 columns.
  const float* a;
  const float* b;
  long long lda, ldb;
  const unsigned* b_keys;
  // Strided batches (batch >= 1): batch b's C at c + b * stride_c elements, its split-K slices after
  // the b * splits slices of the batches before it; an operand with a_batched / b_batched false is
  // one matrix every batch reads (its map's batch extent 1), else its map's batch b and, for the
  // guard, a + b * stride_a (b + b * stride_b; the keys of B's parts b_keys + b * key_stride).
  int batch;
  bool a_batched, b_batched;
  long long stride_c, stride_a, stride_b, key_stride;
};

// The passes of 256 bytes a row that store a slice of BN columns of T (the last may be partial).
template <int BN, class T>
inline constexpr int kStorePasses = (BN * int(sizeof(T)) + 255) / 256;

// Writes pass `pass` of one m64 accumulator slice (its 256 bytes of each of the 64 rows, kCols
// columns of T) as scale * sums into shared memory at smem_rows + at(r, byte): r the row, byte the
// pair's offset in the pass's 256 bytes. The m64nBN layout: thread (warp, lane) holds rows warp * 16 +
// lane / 4 (+ 8), column pairs 8 j + 2 (lane % 4).
template <int BN, class T, class At>
__device__ __forceinline__ void stage_pass(int pass, const float (&sums)[BN / 2], float scale, unsigned char* smem_rows,
                                           int t_in, At at) {
  using P = OutPair<T>;
  constexpr int kCols = 256 / int(sizeof(T));
  const int warp = t_in / 32, lane = t_in % 32;
#pragma unroll
  for (int jj = 0; jj < kCols / 8; ++jj) {
    const int j = pass * (kCols / 8) + jj;
    if (j >= BN / 8) break;  // a last pass over part of its 256 bytes (128 x 192 tiles of 16-bit C)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = warp * 16 + lane / 4 + half * 8, byte = (jj * 8 + (lane % 4) * 2) * int(sizeof(T));
      *reinterpret_cast<typename P::type*>(smem_rows + at(r, byte)) =
          P::make(scale * sums[j * 4 + half * 2], scale * sums[j * 4 + half * 2 + 1]);
    }
  }
}

// Stores scale * sums of one m64 accumulator slice (m64nBN layout: thread (warp, lane) holds rows
// warp * 16 + lane / 4 (+ 8), column pairs 8 j + 2 (lane % 4)) to `out` (its row 0, column 0; rows ld
// elements apart, 16-byte aligned), `rows` x `cols` of it, through one warpgroup's 16 KB of shared
// rows. A pair store from the accumulator layout touches 8 rows (8 L1 wavefronts), which made the
// epilogue ~3 us of a 128 x 256 tile (H100, 2026-11-28); read back, a warp stores 2 rows of 256
// contiguous bytes. Pass by pass, 256 bytes of each row (kCols columns); 16-byte chunk q of row r
// sits at chunk q ^ (r % 8), so the pairs of 8 rows and the chunks a quarter warp reads hit distinct
// banks. Passes past `cols` are skipped (the warpgroup agrees); a chunk that crosses it is stored
// element by element.
template <int BN, class T>
__device__ __forceinline__ void store_slice_staged(T* out, long long ld, int rows, int cols,
                                                   const float (&sums)[BN / 2], float scale, unsigned char* smem_rows,
                                                   int bar, int t_in) {
  using namespace hopper;
  constexpr int kCols = 256 / int(sizeof(T)), kPerChunk = 16 / int(sizeof(T));
#pragma unroll
  for (int pass = 0; pass < kStorePasses<BN, T>; ++pass) {
    if (pass * kCols >= cols) break;
    named_barrier_sync(bar, 128);  // the previous pass's reads are done
    stage_pass<BN, T>(pass, sums, scale, smem_rows, t_in,
                      [](int r, int byte) { return r * 256 + (((byte / 16) ^ (r % 8)) * 16) + byte % 16; });
    named_barrier_sync(bar, 128);
#pragma unroll 2
    for (int i = 0; i < 8; ++i) {
      const int q = t_in + 128 * i, r = q / 16, chunk = q % 16;
      const int col = pass * kCols + chunk * kPerChunk;
      if (r >= rows || col >= cols) continue;
      const unsigned char* from = smem_rows + r * 256 + ((chunk ^ (r % 8)) * 16);
      T* to = out + r * ld + col;
      if (col + kPerChunk <= cols) {
        *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
      } else {
        for (int e = 0; e < cols - col; ++e) to[e] = reinterpret_cast<const T*>(from)[e];
      }
    }
  }
}

// Byte `byte` of line `line` in shared rows staged for TMA stores: boxes of 64 lines x 128 bytes, 8 KB
// apart (byte / 128 picks the box), 16-byte chunks swizzled by the line (TMA's 128-byte swizzle).
__device__ __forceinline__ int tma_box_at(int line, int byte) {
  return (byte / 128) * 8192 + line * 128 + ((((byte % 128) / 16) ^ (line % 8)) * 16) + byte % 16;
}

// The same slice through TMA (C written over, its rows 16-byte aligned; map_c a 3-D map of C with
// boxes of 64 rows x 128 bytes, 128-byte swizzle): pass by pass, 256 bytes of each row go into the
// warpgroup's 16 KB of shared rows as two such boxes, which one thread stores at (col0 + the pass's
// columns, row0, batch); TMA clips what lies past C, so ragged tiles need nothing more. The stores
// run while the warpgroup goes on to its next tile: a pass waits only until the previous stores have
// read the shared rows. (The staged stores above issue 8 16-byte stores a thread per pass; C-bound
// products ran at ~2 TB/s of C with them, H200, 2026-11-29.)
template <int BN, class T>
__device__ __forceinline__ void store_slice_tma(const void* map_c, int col0, int row0, int batch, int cols,
                                                const float (&sums)[BN / 2], float scale, unsigned char* smem_rows,
                                                int bar, int t_in) {
  using namespace hopper;
  constexpr int kCols = 256 / int(sizeof(T)), kBoxCols = 128 / int(sizeof(T));
#pragma unroll
  for (int pass = 0; pass < kStorePasses<BN, T>; ++pass) {
    if (pass * kCols >= cols) break;
    if (t_in == 0) bulk_wait_group_read0();  // the previous stores have read the shared rows
    named_barrier_sync(bar, 128);
    stage_pass<BN, T>(pass, sums, scale, smem_rows, t_in, tma_box_at);
    fence_proxy_async_shared();
    named_barrier_sync(bar, 128);
    if (t_in == 0) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
        if (pass * kCols + h * kBoxCols < cols)
          tma_store_3d(map_c, smem_rows + h * 8192, col0 + pass * kCols + h * kBoxCols, row0, batch);
      bulk_commit_group();
    }
  }
}

// One m64 slice of C^T's sums (p.c_transposed, one k slice: the product's rows r0 .. r0 + 63 are C's
// columns, its BN columns from n0 C's rows) into C (`c`, this batch's). Pass by pass, 64 of the
// slice's columns (BN = 32: its 32) go into the warpgroup's 16 KB of shared rows as C's rows of 64
// floats, in two boxes of kLines lines x 128 bytes with TMA's 128-byte swizzle (a warp's stores then
// hit 32 distinct banks); they leave through TMA stores of map_c (C's map, boxes of kLines rows;
// p.tma_c: FP32 C written over, no fused epilogue), else as 4-float pieces of C's rows, 16 threads a
// row (store_quad_fused: alpha, beta, bias and activation on C).
template <int BN, class OutT>
__device__ __forceinline__ void store_slice_transposed(const WgmmaParams& p, OutT* c, const void* map_c, int batch,
                                                       int r0, int n0, const float (&sums)[BN / 2],
                                                       unsigned char* smem_rows, int bar, int t_in) {
  using namespace hopper;
  const int warp = t_in / 32, lane = t_in % 32;
  constexpr int kLines = BN < 64 ? BN : 64;
  const float scale = p.tma_c ? p.alpha : 1.0f;
  auto at = [](int line, int x) { return tma_box_at(line, x * int(sizeof(float))); };  // C's row `line`, column x
#pragma unroll
  for (int pass = 0; pass < (BN + 63) / 64; ++pass) {
    if (n0 + pass * 64 >= p.n) break;
    if (p.tma_c && t_in == 0) bulk_wait_group_read0();  // the previous stores have read the shared rows
    named_barrier_sync(bar, 128);
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
      const int j = pass * 8 + jj;
      if (j >= BN / 8) break;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int x = warp * 16 + lane / 4 + (e / 2) * 8, line = jj * 8 + (lane % 4) * 2 + e % 2;
        *reinterpret_cast<float*>(smem_rows + at(line, x)) = scale * sums[j * 4 + e];
      }
    }
    if (p.tma_c) fence_proxy_async_shared();
    named_barrier_sync(bar, 128);
    if (p.tma_c) {
      if (t_in == 0) {
#pragma unroll
        for (int h = 0; h < 2; ++h)
          if (r0 + h * 32 < p.m) tma_store_3d(map_c, smem_rows + h * 8192, r0 + h * 32, n0 + pass * 64, batch);
        bulk_commit_group();
      }
      continue;
    }
#pragma unroll 2
    for (int i = 0; i < 8; ++i) {
      const int q = t_in + 128 * i, line = q / 16, x = (q % 16) * 4;
      const int row = n0 + pass * 64 + line, col = r0 + x;  // C's
      if (line >= kLines || row >= p.n || col >= p.m) continue;
      const float4 v = *reinterpret_cast<const float4*>(smem_rows + at(line, x));
      const float quad[4] = {v.x, v.y, v.z, v.w};
      store_quad_fused(c + row * p.ldc + col, quad, min(4, p.m - col), p.alpha, p.beta, p.epi, row, col);
    }
  }
}

// Split-K summed inside a cluster whose blocks are the k slices of one tile (rank = slice; no
// workspace, no second launch): each consumer thread leaves its FP32 sums in the block's stages (free
// once the main loop is done: one unit per block), and after a cluster barrier each block sums a
// share of the tile's rows over every block's shared memory, in slice order (the same bits whichever
// block finished first), and stores them as alpha * sum + beta * C (with p.c_transposed the tile is
// C^T's: its row i, column j go to C's row j, column i). The sums overlay the stages, which
// the other consumer warpgroups' wgmmas may still read: the consumers meet first (kBarConsumers;
// without it racecheck's serialized run read torn sums). The second cluster barrier keeps
// every block's shared memory until all have read it; the producer warpgroup takes both barriers too.
// The sums sit as rows of BN + 4 floats (kSumsPitch): the accumulator pairs of a warp's 8 rows fall
// on distinct banks two by two (the fewest wavefronts), and every thread's stores are immediate
// offsets from one address (an XOR swizzle took registers: 128 bytes of spills on 128 x 256).
template <int BN>
inline constexpr int kSumsPitch = BN + 4;
template <int BM, int BN, class OutT>
__device__ __forceinline__ void sum_tile_in_cluster(const WgmmaParams& p, OutT* c, const float (&sums)[BN / 2],
                                                    float* tile, int cw, int m0, int n0) {
  using namespace hopper;
  constexpr int kConsumerThreads = 128 * wgmma_consumers(BM);
  const int t_in = threadIdx.x % 128, warp = t_in / 32, lane = t_in % 32;
  named_barrier_sync(kBarConsumers, kConsumerThreads);  // every consumer's wgmmas are done with the stages
#pragma unroll
  for (int j = 0; j < BN / 8; ++j)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = cw * 64 + warp * 16 + lane / 4 + half * 8, x = j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(tile + r * kSumsPitch<BN> + x) =
          make_float2(sums[j * 4 + half * 2], sums[j * 4 + half * 2 + 1]);
    }
  cluster_sync();  // every slice's sums are in its block
  const int slices = p.splits, rank = static_cast<int>(cluster_rank());
  const int row_lo = rank * BM / slices, row_hi = (rank + 1) * BM / slices;
  constexpr int kQuads = BN / 4;
  const unsigned base = smem_u32(tile);
  if (p.c_transposed) {
    // C^T's sums into C: a thread sums 4 rows of one column (C's 4 adjacent elements); consecutive
    // threads take consecutive columns (conflict-free shared loads; C's rows ldc apart).
    for (int i = cw * 128 + t_in; i < (row_hi - row_lo + 3) / 4 * BN; i += kConsumerThreads) {
      const int r = row_lo + (i / BN) * 4, x = i % BN;
      const int row = n0 + x, col = m0 + r;  // C's
      const int valid = min(min(4, row_hi - r), p.m - col);
      if (row >= p.n || valid <= 0) continue;
      const unsigned at = base + static_cast<unsigned>(r * kSumsPitch<BN> + x) * 4;
      float v[8][4];  // every slice's loads before the adds
#pragma unroll
      for (int sl = 0; sl < 8; ++sl)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          v[sl][j] = sl < slices && j < valid ? ld_shared_in(at + j * kSumsPitch<BN> * 4, sl) : 0.0f;
      float sum[4] = {v[0][0], v[0][1], v[0][2], v[0][3]};
#pragma unroll
      for (int sl = 1; sl < 8; ++sl)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (sl < slices) sum[j] += v[sl][j];
      store_quad_fused(c + row * p.ldc + col, sum, valid, p.alpha, p.beta, p.epi, row, col);
    }
    cluster_sync();
    return;
  }
  for (int i = cw * 128 + t_in; i < (row_hi - row_lo) * kQuads; i += kConsumerThreads) {
    const int r = row_lo + i / kQuads, q = i % kQuads;
    const int row = m0 + r, col = n0 + q * 4;
    if (row >= p.m || col >= p.n) continue;
    const unsigned at = base + static_cast<unsigned>(r * kSumsPitch<BN> + q * 4) * 4;
    float4 v[8];  // every slice's load before the adds (up to 8 slices: a portable cluster)
#pragma unroll
    for (int sl = 0; sl < 8; ++sl)
      if (sl < slices) v[sl] = ld_shared_in_v4(at, sl);
    float sum[4] = {v[0].x, v[0].y, v[0].z, v[0].w};
#pragma unroll
    for (int sl = 1; sl < 8; ++sl)
      if (sl < slices) sum[0] += v[sl].x, sum[1] += v[sl].y, sum[2] += v[sl].z, sum[3] += v[sl].w;
    store_quad_fused(c + row * p.ldc + col, sum, min(4, p.n - col), p.alpha, p.beta, p.epi, row, col);
  }
  cluster_sync();  // every block has read the others' sums: they may exit
}

template <WgmmaIn kIn, class OutT, int BN, int kStages, bool kAMn, bool kBMn, int kCluster, bool kPingPong,
          int BM = 128>
__global__ void __launch_bounds__(wgmma_threads(BM), 1)
    gemm_wgmma_tma(const __grid_constant__ TensorMap map_a, const __grid_constant__ TensorMap map_b,
                   const __grid_constant__ TensorMap map_c, const WgmmaParams p) {
  using namespace hopper;
  // kSplit: 3xTF32's own main loop (split_main_loop); every other kind runs wgmma on both operands'
  // shared-memory tiles.
  constexpr bool kFp32 = wgmma_fp32_in(kIn), kSplit = kIn == WgmmaIn::TF32x3;
  constexpr int BK = wgmma_bk(kIn), kBPlanes = wgmma_b_planes(kIn), kConsumers = wgmma_consumers(BM);
  // 3xTF32: B's TF32 parts come K-major from split_b_tf32 whatever B's own orientation (kBMn then
  // names that of the FFMA guard's reads).
  constexpr bool kBTileMn = kBMn && !kFp32;
  // TF32 with an MN-major A: wgmma takes A from registers (TF32 wgmma reads no transposed tiles).
  constexpr bool kRegisterA = kIn == WgmmaIn::TF32 && kAMn;
  // C^T's tiles stored into C by this kernel (p.c_transposed, one k slice): TF32's, whose MN-major B
  // runs as C^T's register A; the other kinds write C^T only through split-K's sums.
  constexpr bool kStoresTransposed = kIn == WgmmaIn::TF32;
  static_assert(!kFp32 || !kPingPong, "FP32 operands run cooperative tiles");
  static_assert(BN == 32 || BN == 64 || BN == 128 || BN == 192 || BN == 256, "the wgmma widths hopper.cuh issues");
  // 192 rows: three consumer warpgroups of 152 registers (the register file's share), 128 columns.
  // 64 rows: one consumer warpgroup (the registers need no rebalancing), cooperative.
  static_assert(BM == 128 || (BM == 192 && BN == 128 && !kPingPong && kIn != WgmmaIn::TF32x3) ||
                    (BM == 64 && !kPingPong && kIn != WgmmaIn::TF32x3),
                "192-row tiles: 128 columns, cooperative, one product; 64-row tiles: cooperative, one product");
  static_assert(!kSplit || BN == 128, "3xTF32 keeps a second accumulator set: 128 columns");
  static_assert(!kBTileMn || wgmma_mn_major_b_fits(BN, kCluster), "MN-major B: BN / kCluster a multiple of 64");
  static_assert(kIn != WgmmaIn::TF32 || !kBMn, "TF32 reads B's tile K-major (an MN-major A through registers)");
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<WgmmaSmem<BN, kStages, kBPlanes, BM>*>((reinterpret_cast<unsigned long long>(raw) + 1023) &
                                                                 ~1023ull);
  // Broadcast from lane 0 so the compiler knows it is warp-uniform: the wgmma descriptors then stay on
  // the uniform datapath (without it, 4 R2UR + 4 IADD3 + 3 MOV per wgmma; perf note #117).
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  // Rounded up without overflow for sizes up to 2^31 - 1 (m, n, k >= 1 here).
  const int kt_count = (p.k - 1) / BK + 1;
  // Persistent: cluster c (block b alone without clusters) takes work units c, c + clusters, ...;
  // unit u is batch u / per_batch and in it, v = u % per_batch, k slice v % splits of cluster tile
  // v / splits (kCluster tiles stacked in m, this block's at its rank), the cluster tiles in grouped
  // order (8 rows share their B columns in L2). units < 2^31 (the family checks).
  const unsigned rank = kCluster > 1 ? cluster_rank() : 0;
  const int tiles_n = (p.n - 1) / BN + 1, tiles_m = (p.m - 1) / (BM * kCluster) + 1;
  const int per_batch = tiles_n * tiles_m * p.splits, units = per_batch * p.batch;
  auto unit_origin = [&](int u, int& bb, int& m0, int& n0, int& kt0, int& kt1) {
    bb = u / per_batch;
    u -= bb * per_batch;
    const int t = u / p.splits;
    const int per_group = 8 * tiles_n, first_m = (t / per_group) * 8;
    const int group_rows = min(tiles_m - first_m, 8);
    m0 = ((first_m + (t % per_group) % group_rows) * kCluster + static_cast<int>(rank)) * BM;
    n0 = ((t % per_group) / group_rows) * BN;
    kt0 = (u % p.splits) * p.kt_per_split;
    kt1 = min(kt0 + p.kt_per_split, kt_count);
  };
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], (kPingPong ? 1 : kConsumers) * kCluster);  // the warpgroups that read a stage
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // The barriers are initialized before any block of the cluster arrives on them or loads into them.
  if constexpr (kCluster > 1) cluster_sync();
  else __syncthreads();
  // Split-K's reduction, launched to overlap this grid (kernels/common/griddep.cuh), may start now: its
  // blocks wait for this grid's end before they read the partial sums. Other launches do not react.
  griddep_launch_dependents();
  // Split-K summed in the cluster: only without multicast or ping-pong (the host's choice).
  const bool sum_in_cluster = kCluster == 1 && !kPingPong && p.sum_in_cluster;
  if (wg == 0) {  // the producer: one thread issues every load
    if constexpr (kConsumers > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x != 0) {
      if (sum_in_cluster) cluster_sync_diverged(), cluster_sync_diverged();  // sum_tile_in_cluster's two
      return;
    }
    constexpr int kBRows = BN / kCluster;  // the B rows (n) this block loads for the cluster
    int it = 0;
    for (int u = blockIdx.x / kCluster; u < units; u += gridDim.x / kCluster) {
      int bb, m0, n0, kt0, kt1;
      unit_origin(u, bb, m0, n0, kt0, kt1);
      const int batch_a = p.a_batched ? bb : 0, batch_b = p.b_batched ? bb : 0;
      for (int kt = kt0; kt < kt1; ++kt, ++it) {
        const int st = it % kStages;
        if (it >= kStages) mbar_wait(&s.empty[st], ((it / kStages) - 1) & 1);
        // A and all of B's planes (128-byte lines), multicast halves included.
        mbar_expect_tx(&s.full[st], (BM + kBPlanes * BN) * 128);
        tma_load_tile<BM, kAMn, BK>(s.a[st], &map_a, m0, kt * BK, batch_a, &s.full[st]);
        // Plane q of B's step kt: split_b_tf32 stores the planes of a step side by side along k.
#pragma unroll
        for (int q = 0; q < kBPlanes; ++q)
          tma_load_tile<kBRows, kBTileMn, BK>(s.b[st] + (q * BN + rank * kBRows) * kWgmmaBK, &map_b,
                                              n0 + rank * kBRows, (kt * kBPlanes + q) * BK, batch_b, &s.full[st],
                                              kCluster > 1 ? (1 << kCluster) - 1 : 0);
      }
    }
    // With clusters, the block stays until the last stages are released: the other block's consumers
    // arrive on this block's barriers and its loads write here (its stage is free only then).
    if constexpr (kCluster > 1)
      for (int i = max(it - kStages, 0); i < it; ++i) mbar_wait(&s.empty[i % kStages], (i / kStages) & 1);
    if (sum_in_cluster) cluster_sync_diverged(), cluster_sync_diverged();
    return;
  }
  // The consumers: warpgroup cw = wg - 1 takes rows cw * 64 .. + 63 of the tile, or with kPingPong
  // all of them as two halves (m64 slice h: K-major A lines 64 h ..; MN-major A box h; both start
  // 4096 elements into the stage).
  // The producer's registers go to the consumers: 232 each for two, 152 for three (of 65536).
  if constexpr (kConsumers == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  else if constexpr (kConsumers == 3) asm volatile("setmaxnreg.inc.sync.aligned.u32 152;");
  const int cw = wg - 1;
  const int t_in = threadIdx.x % 128, warp = t_in / 32, lane = t_in % 32;
  constexpr int kSlices = kPingPong ? 2 : 1;  // m64 slices of a warpgroup
  float acc[kSlices][BN / 2];
  // A stage is free once this warpgroup's wgmmas read it: arrive on its empty barrier in every block
  // of the cluster (the producers multicast into all of them), thread r in block r: one instruction.
  auto release = [&](int st) {
    if constexpr (kCluster > 1) {
      if (t_in < kCluster) mbar_arrive_in(&s.empty[st], t_in);
    } else if (t_in == 0) {
      mbar_arrive(&s.empty[st]);
    }
  };
  // A column bias (split-K stores raw sums: its reduction adds it): this thread's two columns loaded
  // when the unit starts, put in the warpgroup's ColumnBiasRows after the main loop. They take the
  // start of the staged rows: after the previous tile's stores have read them, before this tile's
  // stores stage (every store path starts with a barrier; ping-pong applies both slices' epilogues
  // before storing either).
  const bool column_bias = p.epi.bias_kind == kBiasColumn && p.splits == 1 && !(kStoresTransposed && p.c_transposed);
  float bias_pair[2];
  float* const bias_rows = reinterpret_cast<float*>(s.c_rows[cw]);
  static_assert(ColumnBiasRows<BN>::kBytes <= int(sizeof(s.c_rows[0])), "the bias fits the staged rows");
  auto load_bias = [&](int n0) {
    if (column_bias) load_column_bias_pair<BN, OutT>(bias_pair, p.epi, n0, t_in, p.n);
  };
  auto put_bias = [&] {
    if (!column_bias) return;
    if (p.tma_c && t_in == 0) hopper::bulk_wait_group_read0();  // the previous TMA stores have read the rows
    named_barrier_sync(kBarStore + cw, 128);
    put_column_bias<BN>(bias_rows, bias_pair, t_in);
    named_barrier_sync(kBarStore + cw, 128);
  };
  // The fused epilogue on one m64 slice's sums in place (not with split-K: its reduction applies it;
  // nor on C^T: store_slice_transposed applies it on C).
  auto apply_epilogue = [&](float(&sums)[BN / 2], int bb, int r0, int n0) {
    if (p.epi.plain() || p.splits > 1 || (kStoresTransposed && p.c_transposed) || r0 >= p.m) return;
    const OutT* c = static_cast<const OutT*>(p.c) + bb * p.stride_c;
    epilogue_in_registers<BN>(sums, p.epi, p.alpha, p.beta, c, p.ldc, r0 + warp * 16 + lane / 4, n0, lane, p.m, p.n,
                              bias_rows);
  };
  // Stores one m64 slice of accumulators (rows r0 ..) of batch bb: the raw FP32 sums of k slice `slice`
  // with split-K, else alpha * sums + beta * C into C, or with a fused epilogue its values (made in
  // place by apply_epilogue first, alpha and beta included). The m64nBN accumulator layout: thread
  // (warp, lane) holds rows warp * 16 + lane / 4 (+ 8) and column pairs 8 j + 2 (lane % 4).
  auto store_tile = [&](float(&sums)[BN / 2], int bb, int r0, int n0, int slice) {
    const int row0 = r0 + warp * 16 + lane / 4;
    const int rows = min(64, p.m - r0), cols = min(BN, p.n - n0);
    if (rows <= 0) return;  // a ping-pong tile's second m64 slice below C (the whole warpgroup agrees)
    unsigned char* smem_rows = reinterpret_cast<unsigned char*>(s.c_rows[cw]);
    const int bar = kBarStore + cw;  // this warpgroup's named barrier
    if (p.splits > 1) {  // the slice's raw sums (rows 16-byte aligned); the reduction applies alpha and beta
      float* part = p.partial + (static_cast<long long>(bb) * p.splits + slice) * p.m * p.ld_partial;
      store_slice_staged<BN>(part + static_cast<long long>(r0) * p.ld_partial + n0, p.ld_partial, rows, cols, sums,
                             1.0f, smem_rows, bar, t_in);
      return;
    }
    OutT* c = static_cast<OutT*>(p.c) + bb * p.stride_c;
    if constexpr (kStoresTransposed) {
      if (p.c_transposed) {
        store_slice_transposed<BN>(p, c, &map_c, bb, r0, n0, sums, smem_rows, bar, t_in);
        return;
      }
    }
    // A bias or activation was applied in registers: every path writes C over with alpha 1.
    const bool fused = !p.epi.plain();
    const float alpha = fused ? 1.0f : p.alpha, beta = fused ? 0.0f : p.beta;
    if (wgmma_tma_stores_fit(BN, int(sizeof(OutT))) && p.tma_c) {  // C written over through TMA stores
      store_slice_tma<BN, OutT>(&map_c, n0, r0, bb, cols, sums, alpha, smem_rows, bar, t_in);
      return;
    }
    using P = OutPair<OutT>;
    if (p.rows16 && beta == 0.0f) {  // C written over, its rows 16-byte aligned
      store_slice_staged<BN>(c + static_cast<long long>(r0) * p.ldc + n0, p.ldc, rows, cols, sums, alpha, smem_rows,
                             bar, t_in);
      return;
    }
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = n0 + j * 8 + (lane % 4) * 2;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = row0 + half * 8;
        if (row >= p.m) continue;
        OutT* out = c + row * p.ldc + col;
        float v0 = alpha * sums[j * 4 + half * 2], v1 = alpha * sums[j * 4 + half * 2 + 1];
        // One access per pair where it is aligned: every pair (p.pairs), or with an odd ldc every
        // other row's.
        const bool aligned_pair = p.pairs || reinterpret_cast<unsigned long long>(out) % (2 * sizeof(OutT)) == 0;
        if (aligned_pair && col + 1 < p.n) {
          auto* at = reinterpret_cast<typename P::type*>(out);
          if (beta != 0.0f) {
            const float2 old = P::get(*at);
            v0 += beta * old.x;
            v1 += beta * old.y;
          }
          *at = P::make(v0, v1);
          continue;
        }
        if (col < p.n) out[0] = to_out<OutT>(beta != 0.0f ? v0 + beta * from_out(out[0]) : v0);
        if (col + 1 < p.n) out[1] = to_out<OutT>(beta != 0.0f ? v1 + beta * from_out(out[1]) : v1);
      }
    }
  };
  // 3xTF32 (wgmma_tf32.cuh): B's TF32 parts arrive by TMA (K-major planes, split_b_tf32); each
  // warpgroup loads its A fragments from the stage and splits them in registers, the next stage's
  // while the wgmmas of this one run (two fragment sets). Each stage's three products (small terms
  // first) are summed in `part`, zeroed per stage, and added to the accumulators with FP32 adds: the
  // tensor core rounds its sums toward zero, a bias that would grow over long k (mma_tf32x3.cuh).
  // Every wgmma is waited for within its stage; the other warpgroup's keep the tensor cores busy
  // meanwhile.
  unsigned fp32_key = 0xffffffffu;  // 3xTF32's guard: the smallest nonzero magnitude of A split
  auto split_main_loop = [&](float(&sums)[BN / 2], int kt0, int kt1, int it0) {
    if constexpr (kSplit) {
      const int row = cw * 64 + warp * 16 + lane / 4;
      unsigned a_big[2][4][4], a_small[2][4][4];  // [stage parity][k8 step][fragment register]
      auto take_a = [&](int i, unsigned(&big)[4][4], unsigned(&small)[4][4]) {
        mbar_wait(&s.full[i % kStages], (i / kStages) & 1);
        unsigned raw16[16];
        load_a_fragments<kAMn>(s.a[i % kStages], row, lane % 4, raw16);
        split_fragments<2>(raw16, big, small, fp32_key);
      };
      float part[BN / 2];
      auto stage = [&](int kt, int i, unsigned(&big)[4][4], unsigned(&small)[4][4], unsigned(&next_big)[4][4],
                       unsigned(&next_small)[4][4]) {
        const unsigned long long d_big = desc_k_major(&s.b[i % kStages][0]);
        const unsigned long long d_small = desc_k_major(&s.b[i % kStages][BN * kWgmmaBK]);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          WgmmaTf32<BN>::mma(part, small[kk], desc_k_step<false>(d_big, kk), kk > 0 ? 1 : 0);
          WgmmaTf32<BN>::mma(part, big[kk], desc_k_step<false>(d_small, kk), 1);
          WgmmaTf32<BN>::mma(part, big[kk], desc_k_step<false>(d_big, kk), 1);
        }
        wgmma_commit();
        if (kt + 1 < kt1) take_a(i + 1, next_big, next_small);
        wgmma_wait<0>();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int e = 0; e < 4; ++e) fence_operand(big[kk][e]), fence_operand(small[kk][e]);
        release(i % kStages);
#pragma unroll
        for (int j = 0; j < BN / 2; ++j) {
          fence_operand(part[j]);
          sums[j] = kt > kt0 ? sums[j] + part[j] : part[j];
        }
      };
      take_a(it0, a_big[0], a_small[0]);
      // Two stages per pass so that the fragment sets alternate without copies.
      for (int kt = kt0, i = it0; kt < kt1; kt += 2, i += 2) {
        stage(kt, i, a_big[0], a_small[0], a_big[1], a_small[1]);
        if (kt + 1 < kt1) stage(kt + 1, i + 1, a_big[1], a_small[1], a_big[0], a_small[0]);
      }
    }
  };
  // TF32 with an MN-major A (kRegisterA): each warpgroup loads its A fragments from the stage's tile
  // in k order (load_a_fragments_k_order) and wgmma takes them from registers, B's K-major tile from
  // shared memory. Where the registers hold two fragment sets beside the accumulators (64-row tiles,
  // 128 x 128 and narrower), the next stage's fragments load while this one's wgmmas run (one wgmma
  // group in flight, as the tiles' loop below). The wider tiles (168 and 128 registers a thread: two
  // sets spilled 8-168 bytes) load, issue and wait stage by stage, the other consumer warpgroups'
  // wgmmas filling the tensor cores meanwhile: two sets of a quarter stage each instead (8 bytes
  // spilled) ran 12-17 % slower (perf note #156).
  constexpr bool kTwoFragmentSets = BM == 64 || (BM == 128 && BN <= 128);
  auto register_a_main_loop = [&](float(&sums)[BN / 2], int kt0, int kt1, int it0) {
    if constexpr (kRegisterA) {
      const int row = cw * 64 + warp * 16 + lane / 4;
      unsigned frags[kTwoFragmentSets ? 2 : 1][4][4];  // [stage parity][k8 step][fragment register]
      auto take_a = [&](int i, unsigned(&f)[4][4]) {
        mbar_wait(&s.full[i % kStages], (i / kStages) & 1);
        load_a_fragments_k_order(s.a[i % kStages], row, lane % 4, f);
      };
      auto issue = [&](int kt, int i, unsigned(&f)[4][4]) {
        const unsigned long long db = desc_k_major(&s.b[i % kStages][0]);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
          WgmmaTf32<BN>::mma(sums, f[kk], desc_k_step<false>(db, kk), (kt > kt0 || kk > 0) ? 1 : 0);
        wgmma_commit();
      };
      auto keep = [](unsigned(&f)[4][4]) {  // the registers stay the fragments' until here
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int e = 0; e < 4; ++e) fence_operand(f[kk][e]);
      };
      if constexpr (kTwoFragmentSets) {
        auto stage = [&](int kt, int i, unsigned(&f)[4][4], unsigned(&next)[4][4]) {
          issue(kt, i, f);
          // The previous stage's wgmmas are done: its stage and its fragment set (`next`) are free.
          wgmma_wait<1>();
          keep(next);
          if (kt > kt0) release((i - 1) % kStages);
          if (kt + 1 < kt1) take_a(i + 1, next);
        };
        take_a(it0, frags[0]);
        // Two stages per pass so that the fragment sets alternate without copies.
        for (int kt = kt0, i = it0; kt < kt1; kt += 2, i += 2) {
          stage(kt, i, frags[0], frags[1]);
          if (kt + 1 < kt1) stage(kt + 1, i + 1, frags[1], frags[0]);
        }
        wgmma_wait<0>();
        keep(frags[0]), keep(frags[1]);
        release((it0 + kt1 - kt0 - 1) % kStages);
      } else {
        for (int kt = kt0, i = it0; kt < kt1; ++kt, ++i) {
          take_a(i, frags[0]);
          issue(kt, i, frags[0]);
          wgmma_wait<0>();
          keep(frags[0]);
          release(i % kStages);
        }
      }
    }
  };
  const int stride = gridDim.x / kCluster;
  int it = 0, nth = 0;  // the block's stages and units so far
  for (int u = blockIdx.x / kCluster; u < units; u += stride, ++nth) {
    int bb, m0, n0, kt0, kt1;
    unit_origin(u, bb, m0, n0, kt0, kt1);
    if (kPingPong && nth % 2 != cw) {  // the other warpgroup's unit
      it += kt1 - kt0;
      continue;
    }
    if (kPingPong && nth > 0) named_barrier_sync(kBarHandover + cw, 256);  // the other has taken its last stage
    load_bias(n0);
    if constexpr (kSplit || kRegisterA) {
      if constexpr (kSplit) split_main_loop(acc[0], kt0, kt1, it);
      else register_a_main_loop(acc[0], kt0, kt1, it);
      it += kt1 - kt0;
      put_bias();
    } else {
    for (int kt = kt0; kt < kt1; ++kt, ++it) {
      const int st = it % kStages;
      mbar_wait(&s.full[st], (it / kStages) & 1);
      wgmma_fence();
      const unsigned long long db = kBTileMn ? desc_mn_major(&s.b[st][0]) : desc_k_major(&s.b[st][0]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)  // an instruction's k: 32 bytes of each line
#pragma unroll
        for (int h = 0; h < kSlices; ++h) {
          const unsigned short* a_slice = &s.a[st][(kPingPong ? h : cw) * 4096];
          const unsigned long long da = kAMn ? desc_mn_major(a_slice) : desc_k_major(a_slice);
          Wgmma<BN, kIn, kAMn, kBTileMn>::mma(acc[h], desc_k_step<kAMn>(da, kk), desc_k_step<kBTileMn>(db, kk),
                                           (kt > kt0 || kk > 0) ? 1 : 0);
        }
      wgmma_commit();
      // One group in flight: the previous stage's products are done, its buffers free.
      wgmma_wait<1>();
      if (kt > kt0) release((it - 1) % kStages);
      // Ping-pong: the last stage is taken; the other warpgroup's next unit may start.
      if (kPingPong && kt == kt1 - 1 && u + stride < units) named_barrier_arrive(kBarHandover + 1 - cw, 256);
    }
    put_bias();  // while the last wgmma group runs
    wgmma_wait<0>();
    release((it - 1) % kStages);
    }
    // 3xTF32's guard: where an operand value of the warpgroup's rows and the tile's columns is nonzero
    // below 2^-112 in magnitude, Inf or NaN, or a sum is not finite, its sums are FFMA's
    // (mma_tf32x3.cuh); the warpgroup decides together (barrier kBarGuard + cw).
    if constexpr (kIn == WgmmaIn::TF32x3) {
      const long long batch_b = p.b_batched ? bb : 0;
      bool ok = fp32_key >= kSplitMinKey && p.b_keys[batch_b * p.key_stride + n0 / 128] >= kSplitMinKey;
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) ok &= fabsf(acc[0][i]) <= 3.402823466e38f;
      if (!named_barrier_and(kBarGuard + cw, 128, ok))
        ffma_tile<BN, kAMn, kBMn>(p.a + (p.a_batched ? bb * p.stride_a : 0), p.lda, p.b + batch_b * p.stride_b, p.ldb,
                                  p.m, p.n, m0 + cw * 64 + warp * 16 + lane / 4, n0 + (lane % 4) * 2, kt0 * BK,
                                  min(kt1 * BK, p.k), acc[0]);
      fp32_key = 0xffffffffu;
    }
    if constexpr (kCluster == 1 && !kPingPong) {
      if (sum_in_cluster) {
        sum_tile_in_cluster<BM, BN, OutT>(p, static_cast<OutT*>(p.c) + bb * p.stride_c, acc[0],
                                      reinterpret_cast<float*>(&s), cw, m0, n0);
        // One unit per block; returning (not looping) ends the accumulators' lives here (the wgmma asm
        // reads them, so across the loop they stay live beside the sum's loads: 112 bytes of spills).
        return;
      }
    }
#pragma unroll
    for (int h = 0; h < kSlices; ++h) apply_epilogue(acc[h], bb, m0 + (kPingPong ? h : cw) * 64, n0);
#pragma unroll
    for (int h = 0; h < kSlices; ++h)
      store_tile(acc[h], bb, m0 + (kPingPong ? h : cw) * 64, n0, u % p.splits);
  }
  // The block's shared memory must outlive the TMA stores that read it.
  if (p.tma_c && t_in == 0) hopper::bulk_wait_group0();
}

}  // namespace kernels
}  // namespace tilegemm
