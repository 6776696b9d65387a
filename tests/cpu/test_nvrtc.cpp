// Every kernel header (dense and BSR) must compile at run time with NVRTC (DESIGN.md: the tuner instantiates
// schedules nobody compiled ahead of time). For each header and each template instantiation the
// library uses, compile for sm_90a, look up the lowered (mangled) name, and check that the CUBIN
// (SASS for sm_90a) is a non-empty ELF image that contains that kernel's symbol.
// NVRTC needs no GPU, so this runs with the CPU tests.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#ifndef TILEGEMM_SOURCE_DIR
#error "TILEGEMM_SOURCE_DIR (the repository root) must be defined by the build"
#endif

namespace {

const char* const kIncludeOption = "-I" TILEGEMM_SOURCE_DIR "/src";

struct Program {
  nvrtcProgram prog = nullptr;
  ~Program() {
    if (prog) nvrtcDestroyProgram(&prog);
  }
};

struct CompileResult {
  nvrtcResult status = NVRTC_SUCCESS;
  std::string log;
  std::vector<std::string> lowered;  // one per name expression, same order
  std::vector<char> cubin;
  std::string error;  // an API failure outside compilation itself
};

#define TG_NVRTC_OR_RETURN(call)                                                     \
  do {                                                                               \
    const nvrtcResult tg_rc_ = (call);                                               \
    if (tg_rc_ != NVRTC_SUCCESS) {                                                   \
      r.error = std::string(#call) + " failed: " + nvrtcGetErrorString(tg_rc_);      \
      return r;                                                                      \
    }                                                                                \
  } while (0)

// Compiles `#include "<header>"` with the given name expressions instantiated.
CompileResult compile(const std::string& header, const std::vector<std::string>& names) {
  CompileResult r;
  const std::string source = "#include \"" + header + "\"\n";
  Program p;
  TG_NVRTC_OR_RETURN(
      nvrtcCreateProgram(&p.prog, source.c_str(), "tilegemm_nvrtc_test.cu", 0, nullptr, nullptr));
  for (const std::string& n : names) TG_NVRTC_OR_RETURN(nvrtcAddNameExpression(p.prog, n.c_str()));
  const char* options[] = {"--gpu-architecture=sm_90a", "-std=c++17", kIncludeOption};
  r.status = nvrtcCompileProgram(p.prog, static_cast<int>(sizeof(options) / sizeof(options[0])),
                                 options);
  size_t log_size = 0;
  TG_NVRTC_OR_RETURN(nvrtcGetProgramLogSize(p.prog, &log_size));
  if (log_size > 1) {
    r.log.resize(log_size);
    TG_NVRTC_OR_RETURN(nvrtcGetProgramLog(p.prog, &r.log[0]));
    r.log.resize(log_size - 1);  // drop the terminating NUL
  }
  if (r.status != NVRTC_SUCCESS) return r;
  for (const std::string& n : names) {
    const char* lowered = nullptr;
    TG_NVRTC_OR_RETURN(nvrtcGetLoweredName(p.prog, n.c_str(), &lowered));
    r.lowered.emplace_back(lowered ? lowered : "");
  }
  size_t cubin_size = 0;
  TG_NVRTC_OR_RETURN(nvrtcGetCUBINSize(p.prog, &cubin_size));
  r.cubin.resize(cubin_size);
  if (cubin_size > 0) TG_NVRTC_OR_RETURN(nvrtcGetCUBIN(p.prog, r.cubin.data()));
  return r;
}

#undef TG_NVRTC_OR_RETURN

bool contains(const std::vector<char>& haystack, const std::string& needle) {
  if (needle.empty() || haystack.size() < needle.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i)
    if (std::memcmp(haystack.data() + i, needle.data(), needle.size()) == 0) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// The instantiations.

struct KernelCase {
  std::string label;   // test name suffix
  std::string header;  // path below src/
  std::vector<std::string> names;
};

// gtest prints parameters in test listings (and CTest names); show the label, not the bytes.
void PrintTo(const KernelCase& c, std::ostream* os) { *os << c.label; }

const char* b(bool v) { return v ? "true" : "false"; }
std::string tn(bool ta, bool tb) { return std::string(ta ? "T" : "N") + (tb ? "T" : "N"); }

std::vector<KernelCase> all_cases() {
  const std::string ns = "tilegemm::kernels::";
  std::vector<KernelCase> cases;
  cases.push_back({"L00_scale_c", "kernels/gemm/00_scale.cuh",
                   {"&" + ns + "scale_c<0>", "&" + ns + "scale_c<1>", "&" + ns + "scale_c<2>"}});
  // The 16-bit kernels (their types and conversions come from types_16bit.cuh and out_convert.cuh,
  // which need no CUDA header under NVRTC). Level 8: every compiled schedule (wgmma_launch.hpp) on
  // one orientation and output type each, and one of them in every orientation, input and output type;
  // FP32 operands (3xTF32 and TF32) on 128 columns in every orientation.
  cases.push_back({"L08_pack_16bit", "kernels/gemm/pack_16bit.cuh", {"&" + ns + "pack_16bit"}});
  const std::string bf16 = ns + "bf16_t", f16 = ns + "f16_t";
  auto wgmma_in = [&](const std::string& in, const std::string& out, const char* tile) {
    return "&" + ns + "gemm_wgmma_tma<" + ns + "WgmmaIn::" + in + ", " + out + ", " + tile + ">";
  };
  auto wgmma = [&](bool f16_in, const std::string& out, const char* tile) {
    return wgmma_in(f16_in ? "F16" : "BF16", out, tile);
  };
  {
    KernelCase c{"L08_gemm_wgmma_tma_schedules", "kernels/gemm/08_wgmma_tma.cuh", {}};
    // <BN, stages, A MN-major, B MN-major, cluster, ping-pong[, BM]>
    for (const char* tile : {"256, 4, false, true, 1, false", "256, 4, false, true, 2, false",
                             "192, 4, true, true, 1, false", "128, 4, true, false, 1, false",
                             "128, 4, true, true, 1, false, 192", "128, 6, false, false, 1, true",
                             "128, 6, true, true, 2, true"})
      c.names.push_back(wgmma(false, bf16, tile));
    cases.push_back(c);
  }
  for (bool f16_in : {false, true}) {
    KernelCase c{std::string("L08_gemm_wgmma_tma_") + (f16_in ? "f16" : "bf16") + "_types_and_layouts",
                 "kernels/gemm/08_wgmma_tma.cuh", {}};
    for (const char* tile : {"128, 5, false, false, 1, false", "128, 5, true, true, 1, false",
                             "128, 5, false, true, 1, false", "128, 5, true, false, 1, false"})
      c.names.push_back(wgmma(f16_in, f16_in ? f16 : bf16, tile));
    c.names.push_back(wgmma(f16_in, "float", "256, 3, false, false, 2, false"));
    cases.push_back(c);
  }
  {
    KernelCase c{"L08_gemm_wgmma_tma_fp32_operands", "kernels/gemm/08_wgmma_tma.cuh", {}};
    for (const char* tile : {"128, 4, false, false, 1, false", "128, 4, true, true, 2, false",
                             "128, 3, false, true, 1, false", "128, 3, true, false, 1, false"})
      c.names.push_back(wgmma_in("TF32x3", "float", tile));
    // TF32 reads K-major tiles only (the launch converts the others).
    for (const char* tile : {"256, 3, false, false, 1, false", "128, 4, false, false, 2, false"})
      c.names.push_back(wgmma_in("TF32", "float", tile));
    cases.push_back(c);
  }
  {
    KernelCase c{"X_skinny_16bit", "kernels/gemm/skinny_16bit.cuh", {}};
    for (bool f16_in : {false, true})
      for (bool w_k_major : {false, true})
        for (int row_tiles : {1, 2})
          c.names.push_back("&" + ns + "skinny_16bit<" + b(f16_in) + ", " + (f16_in ? f16 : bf16) + ", " +
                            b(w_k_major) + ", " + std::to_string(row_tiles) + ">");
    c.names.push_back("&" + ns + "skinny_16bit<false, float, true, 1>");
    cases.push_back(c);
  }
  cases.push_back({"X_split_reduce_16bit", "kernels/gemm/split_reduce_16bit.cuh",
                   {"&" + ns + "split_reduce_16bit<float>", "&" + ns + "split_reduce_16bit<" + bf16 + ">",
                    "&" + ns + "split_reduce_16bit<" + f16 + ">"}});

  struct Simple {
    const char* level;
    const char* header;
    const char* kernel;
  };
  const Simple simple[] = {{"L01", "kernels/gemm/01_naive.cuh", "gemm_naive"},
                           {"L02", "kernels/gemm/02_coalesced.cuh", "gemm_coalesced"},
                           {"L03", "kernels/gemm/03_shared_tiled.cuh", "gemm_shared_tiled"}};
  for (const Simple& s : simple)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        cases.push_back({std::string(s.level) + "_" + s.kernel + "_" + tn(ta, tb), s.header,
                         {"&" + ns + s.kernel + "<" + b(ta) + ", " + b(tb) + ">"}});

  for (bool ta : {false, true})
    for (bool tb : {false, true})
      cases.push_back({"L04_gemm_register_tiled_default_" + tn(ta, tb),
                       "kernels/gemm/04_register_tiled.cuh",
                       {"&" + ns + "gemm_register_tiled<" + ns + "RegisterTiledDefault, " + b(ta) +
                        ", " + b(tb) + ">"}});

  // Levels 5 and 6: one program per transpose combination, holding all four vec-flag variants.
  struct Vec {
    const char* label;
    const char* header;
    const char* kernel;
    const char* schedule;
  };
  const Vec vec[] = {
      {"L05_gemm_vectorized_default", "kernels/gemm/05_vectorized.cuh", "gemm_vectorized",
       "VectorizedDefault"},
      // Level 6's two schedules (src/dense/warp_tiled_default.hpp, transposing copies) and the
      // former default without them ([col][k] tiles).
      {"L06_gemm_warp_tiled_128x256x32_w64x64_t16x8_s4_T", "kernels/gemm/06_warp_tiled.cuh",
       "gemm_warp_tiled", "WarpTiledSchedule<128, 256, 32, 64, 64, 16, 8, 4, 1, 3, true>"},
      {"L06_gemm_warp_tiled_128x128x16_w64x32_t8x8_s4_b2_T", "kernels/gemm/06_warp_tiled.cuh",
       "gemm_warp_tiled", "WarpTiledSchedule<128, 128, 16, 64, 32, 8, 8, 4, 2, 3, true>"},
      {"L06_gemm_warp_tiled_128x256x32_w64x64_t16x8_s3", "kernels/gemm/06_warp_tiled.cuh",
       "gemm_warp_tiled", "WarpTiledSchedule<128, 256, 32, 64, 64, 16, 8, 3, 1, 3>"},
  };
  for (const Vec& v : vec)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        KernelCase c{std::string(v.label) + "_" + tn(ta, tb), v.header, {}};
        for (bool va : {false, true})
          for (bool vb : {false, true})
            c.names.push_back("&" + ns + v.kernel + "<" + ns + v.schedule + ", " + b(ta) + ", " +
                              b(tb) + ", " + b(va) + ", " + b(vb) + ">");
        cases.push_back(c);
      }

  // The split-K / stream-K kernel: every schedule the library compiles (src/dense/config.hpp) for
  // row-major NN with both copy widths of B, and the first one for every op combination.
  const char* const tiled[] = {"WarpTiledSchedule<128, 256, 32, 64, 64, 16, 8, 4, 1, 3, true>",
                               "WarpTiledSchedule<128, 128, 16, 64, 32, 8, 8, 4, 2, 3, true>",
                               "WarpTiledSchedule<128, 64, 16, 64, 32, 8, 8, 3, 4, 3, true>",
                               "WarpTiledSchedule<64, 128, 16, 32, 64, 8, 8, 3, 4, 3, true>",
                               "WarpTiledSchedule<64, 64, 16, 32, 32, 8, 4, 3, 6, 3, true>",
                               "WarpTiledSchedule<32, 32, 16, 32, 16, 4, 4, 4, 8, 3, true>"};
  for (const char* schedule : tiled) {
    std::string dims;  // "128x256x32" from the schedule's first three arguments
    for (const char* p = schedule; *p && std::count(dims.begin(), dims.end(), 'x') < 3; ++p) {
      if (*p >= '0' && *p <= '9') dims += *p;
      else if (*p == ',' && !dims.empty() && dims.back() != 'x') dims += 'x';
    }
    dims.pop_back();
    KernelCase c{"X_gemm_split_tiled_" + dims, "kernels/gemm/split_tiled.cuh", {}};
    for (bool vb : {false, true})
      c.names.push_back("&" + ns + "gemm_split_tiled<" + ns + schedule + ", false, false, false, " + b(vb) + ">");
    cases.push_back(c);
  }
  {
    KernelCase c{"X_gemm_split_tiled_128x256_ops", "kernels/gemm/split_tiled.cuh", {}};
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        c.names.push_back("&" + ns + "gemm_split_tiled<" + ns + tiled[0] + ", " + b(ta) + ", " + b(tb) + ", " + b(ta) +
                          ", " + b(!tb) + ">");
    cases.push_back(c);
  }
  // Level 7: its whole-tile kernel for every op combination, and the split kernel on each compiled
  // tensor-core schedule (both take 16-byte copies only: unaligned operands are packed first).
  {
    KernelCase c{"L07_gemm_mma_tf32x3_128x256x32_w64x64_s3", "kernels/gemm/07_mma_tf32x3.cuh", {}};
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        c.names.push_back("&" + ns + "gemm_mma_tf32x3<" + ns + "MmaTf32x3Schedule<128, 256, 32, 64, 64, 3, 1, 1>, " +
                          b(ta) + ", " + b(tb) + ", true, true>");
    cases.push_back(c);
  }
  {
    KernelCase c{"X_gemm_split_tiled_tf32x3", "kernels/gemm/split_tiled.cuh", {}};
    for (const char* schedule : {"128, 256, 32, 64, 64, 3, 1, 1", "128, 128, 32, 64, 32, 3, 1, 4",
                                 "64, 64, 32, 32, 32, 4, 2, 1", "64, 128, 32, 32, 64, 3, 2, 4"})
      c.names.push_back("&" + ns + "gemm_split_tiled<" + ns + "MmaTf32x3Schedule<" + schedule +
                        ">, false, true, true, true>");
    cases.push_back(c);
  }
  {  // gemv-rows at s = 16: gemv_rows_staged
    KernelCase c{"X_gemv_rows", "kernels/gemm/gemv_rows.cuh", {}};
    for (int s : {1, 2, 4, 8})
      for (bool vec : {false, true})
        c.names.push_back("&" + ns + "gemv_rows<" + std::to_string(s) + ", " + b(vec) + ">");
    cases.push_back(c);
  }
  // The columns kernels, each way of reading W's rows (gemv_common.cuh, GemvColsW).
  for (const char* kernel : {"gemv_cols", "gemv_cols_one"}) {
    KernelCase c{std::string("X_") + kernel, std::string("kernels/gemm/") + kernel + ".cuh", {}};
    const bool one_row = std::string(kernel) == "gemv_cols_one";
    for (int width : one_row ? std::vector<int>{8, 16, 32} : std::vector<int>{2, 4, 8, 16})
      for (const char* w : {"Aligned", "Shifted", "Scalar"})
        c.names.push_back("&" + ns + kernel + "<" + std::to_string(width) + ", " + ns + "GemvColsW::" + w + ">");
    cases.push_back(c);
  }
  {
    KernelCase c{"X_gemv_rows_staged", "kernels/gemm/gemv_rows_staged.cuh", {}};
    for (const char* x : {"KRows", "SRows"})
      for (bool vec_w : {false, true})
        for (bool vec_x : {false, true})
          c.names.push_back("&" + ns + "gemv_rows_staged<16, " + ns + "GemvXStage::" + x + ", " + b(vec_w) + ", " +
                            b(vec_x) + ">");
    cases.push_back(c);
  }

  // BSR kernels: both orientations (xwt, wx); kernel 02 and 03 with and without 16-byte copies,
  // kernel 03 for each schedule dispatch uses (sparse/config.hpp, kBsrSchedules).
  cases.push_back({"S01_bsr_reduction", "kernels/bsr/01_reduction.cuh",
                   {"&" + ns + "bsr_reduction<true>", "&" + ns + "bsr_reduction<false>"}});
  {
    KernelCase c{"S02_bsr_small_m", "kernels/bsr/02_small_m.cuh", {}};
    for (bool xwt : {false, true})
      for (bool vec : {false, true})
        for (int cols : {1, 8, 16})
          c.names.push_back("&" + ns + "bsr_small_m<" + b(xwt) + ", " + b(vec) + ", " +
                            std::to_string(cols) + ">");
    cases.push_back(c);
  }
  for (const char* schedule : {"BsrTiled64K32", "BsrTiled64", "BsrTiled32", "BsrTiled16", "BsrTiled8"}) {
    KernelCase c{std::string("S03_bsr_tiled_") + schedule, "kernels/bsr/03_tiled.cuh", {}};
    for (bool xwt : {false, true})
      for (bool vec : {false, true})
        c.names.push_back("&" + ns + "bsr_tiled<" + ns + schedule + ", " + b(xwt) + ", " + b(vec) +
                          ">");
    cases.push_back(c);
  }
  // Kernel 04 (mma.sync TF32) for two of its schedules; the rest compile at run time in the tuner.
  for (const char* schedule : {"BsrMma64K32", "BsrMma16"}) {
    KernelCase c{std::string("S04_bsr_tiled_tf32x3_") + schedule, "kernels/bsr/04_tiled_tf32x3.cuh", {}};
    for (bool xwt : {false, true})
      for (bool vec : {false, true})
        c.names.push_back("&" + ns + "bsr_tiled_tf32x3<" + ns + schedule + ", " + b(xwt) + ", " + b(vec) + ">");
    cases.push_back(c);
  }
  // DeviceBsrMatrix::from_device's preparation kernels (src/sparse/device_bsr_prepare.cu).
  cases.push_back({"S00_bsr_validate_structure", "kernels/bsr/validate_bsr.cuh",
                   {"&" + ns + "bsr_validate_structure"}});
  cases.push_back({"S00_bsr_narrow_indices", "kernels/bsr/narrow_indices.cuh",
                   {"&" + ns + "bsr_narrow_indices"}});
  cases.push_back({"S00_bsr_row_lengths", "kernels/bsr/row_lengths.cuh", {"&" + ns + "bsr_row_lengths"}});
  return cases;
}

class NvrtcKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(NvrtcKernel, CompilesForSm90a) {
  const KernelCase& kc = GetParam();
  const CompileResult r = compile(kc.header, kc.names);
  ASSERT_TRUE(r.error.empty()) << r.error << "\nNVRTC log:\n" << r.log;
  ASSERT_EQ(r.status, NVRTC_SUCCESS) << "NVRTC failed to compile " << kc.header << ": "
                                     << nvrtcGetErrorString(r.status) << "\nNVRTC log:\n"
                                     << r.log;
  ASSERT_FALSE(r.cubin.empty()) << kc.header << ": empty CUBIN";
  ASSERT_GE(r.cubin.size(), 4u);
  EXPECT_EQ(0, std::memcmp(r.cubin.data(), "\x7f" "ELF", 4)) << "CUBIN is not an ELF image";
  ASSERT_EQ(r.lowered.size(), kc.names.size());
  for (size_t i = 0; i < kc.names.size(); ++i) {
    EXPECT_FALSE(r.lowered[i].empty()) << "no lowered name for " << kc.names[i];
    EXPECT_TRUE(contains(r.cubin, r.lowered[i]))
        << "kernel " << kc.names[i] << " (" << r.lowered[i] << ") is missing from the CUBIN";
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, NvrtcKernel, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<KernelCase>& info) {
                           return info.param.label;
                         });

// A schedule that breaks a constraint must be rejected at compile time (the tuner relies on the
// static_asserts to prune its search space): a 64 x 64 warp tile with 8 x 8 thread tiles needs 64
// lanes, not 32.
TEST(NvrtcKernelRejects, InvalidWarpTiledSchedule) {
  const CompileResult r =
      compile("kernels/gemm/06_warp_tiled.cuh",
              {"&tilegemm::kernels::gemm_warp_tiled<tilegemm::kernels::WarpTiledSchedule<128, 128, "
               "8, 64, 64, 8, 8, 4>, false, false, false, false>"});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.status, NVRTC_ERROR_COMPILATION) << "an invalid schedule compiled";
  EXPECT_NE(r.log.find("static assertion"), std::string::npos) << "NVRTC log:\n" << r.log;
}

}  // namespace
