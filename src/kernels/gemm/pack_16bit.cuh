// Packs a 16-bit operand that TMA cannot address (its address or leading dimension is not a multiple
// of 16 bytes) into workspace rows that it can: `lines` stored lines of `inner` elements, `ld` apart,
// become lines ld_out = inner rounded up to 8 elements apart, the tail of each line zero. Level 8
// (08_wgmma_tma.cuh) then loads the copy; a copy at memory bandwidth costs less than any in-kernel
// producer that reads through registers (docs/perf-notes.md #71).
//
// Each thread writes one 16-byte output chunk at a time, read as the one or two aligned 16-byte
// blocks that hold it and shifted into place (funnel shifts). Both blocks hold an element the chunk
// needs, so no read starts before the operand's first 16-byte block; a chunk whose blocks would reach
// past the operand's last element (which may end its allocation) is read element by element.
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC (-I src).
#pragma once

namespace tilegemm {
namespace kernels {

namespace pack_detail {

// One 16-byte chunk of the output: the 8 elements at `src`, of which the first `valid` (0..8) are
// wanted.
struct Chunk {
  const unsigned short* src;
  int valid;
  bool by_element;  // the aligned blocks would read past the operand's last element
  uint4 v0, v1;     // the aligned 16-byte blocks holding the chunk

  __device__ __forceinline__ void load(const unsigned short* p, int n, unsigned long long operand_end) {
    src = p;
    valid = n;
    const unsigned long long addr = reinterpret_cast<unsigned long long>(p);
    const unsigned long long first = addr & ~15ull, end = addr + 2ull * (n > 0 ? n : 0);
    const bool second = first + 16 < end;
    by_element = n > 0 && first + (second ? 32 : 16) > operand_end;
    v0 = v1 = make_uint4(0, 0, 0, 0);
    if (n > 0 && !by_element) {
      v0 = __ldg(reinterpret_cast<const uint4*>(first));
      if (second) v1 = __ldg(reinterpret_cast<const uint4*>(first) + 1);
    }
  }
  // The chunk's bits: bytes s .. s + 15 of v0:v1 (s = the address mod 16), elements past `valid` zero.
  __device__ __forceinline__ uint4 get() const {
    if (valid <= 0) return make_uint4(0, 0, 0, 0);
    if (by_element) {
      unsigned e[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) e[i] = i < valid ? __ldg(src + i) : 0u;
      return make_uint4(e[0] | e[1] << 16, e[2] | e[3] << 16, e[4] | e[5] << 16, e[6] | e[7] << 16);
    }
    const int s = static_cast<int>(reinterpret_cast<unsigned long long>(src) & 15);
    // Words q .. q + 4 of v0:v1, funnel-shifted by 0 or 16 bits.
    const unsigned w[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
    const int q = s >> 2;
    const unsigned shift = (s & 2) * 8;
    unsigned x[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) x[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
    unsigned o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) o[i] = __funnelshift_r(x[i], x[i + 1], shift);
    if (valid < 8) {  // the elements past the operand's edge are zeros
#pragma unroll
      for (int i = 0; i < 4; ++i) o[i] = 2 * i >= valid ? 0u : 2 * i + 1 >= valid ? (o[i] & 0xFFFFu) : o[i];
    }
    return make_uint4(o[0], o[1], o[2], o[3]);
  }
};

}  // namespace pack_detail

// chunks_per_line = ld_out / 8; batches * lines * chunks_per_line < 2^31 (the launcher checks), so the
// index arithmetic is 32-bit (a 64-bit division per chunk halved the copy's bandwidth). `batches`
// matrices, src_stride elements apart, become one packed matrix after the other (lines lines each).
__global__ void __launch_bounds__(256) pack_16bit(const unsigned short* src, long long ld, int lines, int inner,
                                                  uint4* dst, unsigned chunks_per_line, int batches,
                                                  long long src_stride) {
  const unsigned chunks = chunks_per_line * static_cast<unsigned>(lines);
  for (unsigned i = blockIdx.x * 256u + threadIdx.x; i < chunks * static_cast<unsigned>(batches);
       i += gridDim.x * 256u) {
    const unsigned batch = i / chunks, in_batch = i - batch * chunks;
    const unsigned short* from = src + batch * src_stride;
    // One past the matrix's last element.
    const unsigned long long end =
        reinterpret_cast<unsigned long long>(from + (static_cast<long long>(lines) - 1) * ld + inner);
    const unsigned line = in_batch / chunks_per_line;
    const int e0 = static_cast<int>(in_batch - line * chunks_per_line) * 8;
    pack_detail::Chunk c;
    c.load(from + static_cast<long long>(line) * ld + e0, min(8, inner - e0), end);
    dst[i] = c.get();
  }
}

}  // namespace kernels
}  // namespace tilegemm
