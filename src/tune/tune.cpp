// tilegemm::tune for a GEMM and for a BSR product: operands, a reference from a kernel family no
// candidate shares (level 5; for BSR over W expanded to dense) and the product under test, then the one
// search over the operation model's candidates (tune/search.hpp), and the fastest stored in the tuning
// database.
#include "tilegemm/tune.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_context.hpp"
#include "dense/check_args.hpp"
#include "dense/matrix_extent.hpp"
#include "jit/jit.hpp"
#include "ops/choose.hpp"
#include "ops/bsr_call.hpp"
#include "ops/gemm_call.hpp"
#include "ops/keys.hpp"
#include "ref/reference.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tune/database.hpp"
#include "tune/measure.hpp"
#include "tune/search.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

struct Operands {
  int64_t lda = 0, ldb = 0, ldc = 0;
  StoredOperands stored;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements between batches (0 with one batch)
  int64_t size_a = 0, size_b = 0, size_c = 0;        // elements to allocate, offset and batches included
  int64_t bias_count = 0;                            // the bias vector's values
};

int64_t tight_or(int64_t ld, const StoredMatrix& s, Layout layout) { return ld > 0 ? ld : s.min_ld(layout); }

Operands check_shape(const GemmShape& s, const TuneOptions& o) {
  if (s.dtype != DType::F32 && s.dtype != DType::BF16 && s.dtype != DType::F16)
    invalid("shape.dtype = " + to_string(s.dtype) + ": the tuner takes F32, BF16 or F16 products");
  // Math::FfmaOnly shares fp32's key (dtype "f32"): its winners would serve fp32 calls. Tuning under
  // fp32 measures the FFMA configs too.
  if (s.math != Math::Fp32 && s.math != Math::Tf32)
    invalid("shape.math = " + std::to_string(static_cast<int>(s.math)) +
            ": the tuner takes math fp32 (FFMA and tensor-core configs) or tf32");
  if (s.math == Math::Tf32 && s.dtype != DType::F32)
    invalid("shape.math = tf32 applies to F32 products (shape.dtype is " + to_string(s.dtype) + ")");
  if (s.layout != Layout::RowMajor && s.layout != Layout::ColMajor)
    invalid("shape.layout = " + std::to_string(static_cast<int>(s.layout)) + " is not a Layout value");
  if (s.op_a != Op::N && s.op_a != Op::T) invalid("shape.op_a is not an Op value");
  if (s.op_b != Op::N && s.op_b != Op::T) invalid("shape.op_b is not an Op value");
  const std::pair<const char*, int64_t> dims[] = {{"shape.m", s.m}, {"shape.n", s.n}, {"shape.k", s.k}};
  for (const auto& [name, v] : dims)
    if (v < 1 || v > INT_MAX) invalid(std::string(name) + " = " + std::to_string(v) + " is not in [1, 2^31-1]");
  if (s.offset < 0 || s.offset > (1 << 20)) invalid("shape.offset = " + std::to_string(s.offset) + " is not in [0, 2^20]");
  if (s.batch < 1 || s.batch > (1 << 20)) invalid("shape.batch = " + std::to_string(s.batch) + " is not in [1, 2^20]");
  if (s.bias != BiasKind::None && s.bias != BiasKind::PerRow && s.bias != BiasKind::PerColumn)
    invalid("shape.bias = " + std::to_string(static_cast<int>(s.bias)) + " is not a BiasKind value");
  if (static_cast<int>(s.activation) < 0 || static_cast<int>(s.activation) > static_cast<int>(Activation::Silu))
    invalid("shape.activation = " + std::to_string(static_cast<int>(s.activation)) + " is not an Activation value");
  detail::check_tune_options(o);
  Operands ops;
  ops.stored = stored_shapes(s.op_a, s.op_b, s.m, s.n, s.k);
  ops.lda = tight_or(s.lda, ops.stored.a, s.layout);
  ops.ldb = tight_or(s.ldb, ops.stored.b, s.layout);
  ops.ldc = tight_or(s.ldc, ops.stored.c, s.layout);
  const std::pair<const char*, std::pair<int64_t, const StoredMatrix*>> lds[] = {
      {"shape.lda", {ops.lda, &ops.stored.a}}, {"shape.ldb", {ops.ldb, &ops.stored.b}}, {"shape.ldc", {ops.ldc, &ops.stored.c}}};
  for (const auto& [name, v] : lds)
    if (v.first < v.second->min_ld(s.layout) || v.first > INT_MAX)
      invalid(std::string(name) + " = " + std::to_string(v.first) + " is not in [" +
              std::to_string(v.second->min_ld(s.layout)) + ", 2^31-1]");
  // Batches one whole stored matrix apart (its rows, or columns, x ld), as the bench lays them out.
  auto stride = [&](const StoredMatrix& m, int64_t ld) {
    return s.batch > 1 ? (s.layout == Layout::RowMajor ? m.rows : m.cols) * ld : 0;
  };
  ops.stride_a = stride(ops.stored.a, ops.lda);
  ops.stride_b = stride(ops.stored.b, ops.ldb);
  ops.stride_c = stride(ops.stored.c, ops.ldc);
  ops.size_a = s.offset + (s.batch - 1) * ops.stride_a + ops.stored.a.extent(s.layout, ops.lda);
  ops.size_b = s.offset + (s.batch - 1) * ops.stride_b + ops.stored.b.extent(s.layout, ops.ldb);
  ops.size_c = s.offset + (s.batch - 1) * ops.stride_c + ops.stored.c.extent(s.layout, ops.ldc);
  ops.bias_count = s.bias == BiasKind::PerRow ? s.m : s.bias == BiasKind::PerColumn ? s.n : 0;
  return ops;
}

void check_bsr_shape(const BsrShape& s, const DeviceBsrMatrix& w) {
  if (s.product != BsrProduct::Xwt && s.product != BsrProduct::Wx) invalid("shape.product is not a BsrProduct value");
  const std::pair<const char*, int64_t> dims[] = {{"shape.m", s.m}, {"shape.n", s.n}, {"shape.k", s.k}};
  for (const auto& [name, v] : dims)
    if (v < 1 || v > INT_MAX) invalid(std::string(name) + " = " + std::to_string(v) + " is not in [1, 2^31-1]");
  const bool xwt = s.product == BsrProduct::Xwt;
  const int64_t rows = xwt ? s.n : s.m;
  if (w.rows() != rows || w.cols() != s.k)
    invalid(std::string("w: ") + std::to_string(w.rows()) + " x " + std::to_string(w.cols()) + " does not match shape (" +
            (xwt ? "xwt needs W n x k = " : "wx needs W m x k = ") + std::to_string(rows) + " x " + std::to_string(s.k) +
            ")");
  if (w.nnzb() == 0) invalid("w: no stored blocks, nothing to tune (every product is Y = beta * Y)");
}

}  // namespace

std::string tuning_database_path() { return detail::default_tuning_db_path(); }

void reload_tuning_database() { detail::forget_tuned_tables(); }

TuneResult tune(const GemmShape& shape, const TuneOptions& options) {
  const Operands ops = check_shape(shape, options);
  detail::TuneRun run(options);
  const cudaStream_t s = run.stream();
  const DType t = shape.dtype;
  const bool f32 = t == DType::F32;
  const int64_t off = shape.offset, bytes = dtype_bytes(t);

  // Operands uniform in [-1, 1], rounded to the type, and FP32 copies of those values (exact) for the
  // reference; C0 is C's starting value when beta != 0. An F32 product uses the FP32 buffers as-is.
  DeviceBuffer<float> a32(ops.size_a), b32(ops.size_b), ref(ops.size_c), c0_32(shape.beta_zero ? 0 : ops.size_c);
  DeviceBuffer<unsigned char> a16(f32 ? 0 : ops.size_a * bytes), b16(f32 ? 0 : ops.size_b * bytes),
      c0_16(f32 || shape.beta_zero ? 0 : ops.size_c * bytes), c(ops.size_c * bytes);
  DeviceBuffer<float> c_wide(f32 ? 0 : ops.size_c);  // a 16-bit C widened for the comparison
  // The bias in C's type (the candidates') and its exact FP32 copy (the reference's).
  DeviceBuffer<float> bias32(ops.bias_count);
  DeviceBuffer<unsigned char> bias16(f32 ? 0 : ops.bias_count * bytes);
  const std::pair<DeviceBuffer<float>*, DeviceBuffer<unsigned char>*> fills[] = {
      {&a32, &a16}, {&b32, &b16}, {&c0_32, &c0_16}, {&bias32, &bias16}};
  const uint64_t seeds[] = {0x7A11, 0x7A12, 0x7A13, 0x7A14};
  for (int i = 0; i < 4; ++i) {
    const int64_t count = static_cast<int64_t>(fills[i].first->size());
    detail::fill_uniform(fills[i].first->get(), count, seeds[i], s);
    if (f32 || count == 0) continue;
    detail::narrow_from_f32(fills[i].first->get(), t, fills[i].second->get(), count, s);
    detail::widen_to_f32(fills[i].second->get(), t, fills[i].first->get(), count, s);
  }
  const void* a = f32 ? static_cast<void*>(a32.get()) : a16.get();
  const void* b = f32 ? static_cast<void*>(b32.get()) : b16.get();
  const void* c0 = shape.beta_zero ? nullptr : f32 ? static_cast<void*>(c0_32.get()) : c0_16.get();
  auto at = [&](const void* base) { return static_cast<const unsigned char*>(base) + off * bytes; };

  // The call in type `type` on these buffers (each batch, the epilogue).
  const float alpha = 1.0f, beta = shape.beta_zero ? 0.0f : 1.0f;
  auto call = [&](DType type, const void* pa, const void* pb, void* pc, const void* bias) {
    GemmArgs g;
    g.layout = shape.layout;
    g.op_a = shape.op_a;
    g.op_b = shape.op_b;
    g.m = shape.m;
    g.n = shape.n;
    g.k = shape.k;
    g.batch = shape.batch;
    g.a = MatrixArg{type, pa, ops.lda, ops.stride_a};
    g.b = MatrixArg{type, pb, ops.ldb, ops.stride_b};
    g.c = OutputArg{type, pc, ops.ldc, ops.stride_c};
    g.epilogue = Epilogue{alpha, beta, shape.bias, ops.bias_count > 0 ? bias : nullptr, type, shape.activation};
    return g;
  };
  // The reference: level 5 on the FP32 copies, a kernel family none of the candidates shares, with
  // 64-bit offsets (an epilogue in its elementwise pass, epilogue_pass.cuh).
  run.reset_output(ref.get(), shape.beta_zero ? nullptr : c0_32.get(), ops.size_c);
  GemmOptions level5;
  level5.kernel = Kernel::Vectorized;
  gemm(call(DType::F32, a32.get() + off, b32.get() + off, ref.get() + off, bias32.get()), run.user_stream(), level5);

  const GemmArgs args = call(t, at(a), at(b), c.get() + off * bytes, f32 ? static_cast<void*>(bias32.get()) : bias16.get());
  GemmOptions math;
  math.math = shape.math;
  const ops::Problem problem = ops::gemm_call(args, math).problem;
  const int64_t outer = ops.stored.c.rows, inner = ops.stored.c.cols;
  // Every batch's C: batches are whole stored matrices one after the other.
  const int64_t c_outer = (shape.layout == Layout::RowMajor ? outer : inner) * shape.batch;
  const int64_t c_inner = shape.layout == Layout::RowMajor ? inner : outer;
  // Ours and level 5's FP32 rounding (|A|, |B| <= 1); a 16-bit C is also rounded once to its type,
  // up to a unit roundoff of the largest |C| (2^-8 bf16, 2^-11 f16).
  double tolerance = 2.0 * ref::fp32_gemm_error_bound(shape.k);
  // TF32 math cuts both operands to 10-bit mantissas: up to 2^-9 of each product.
  if (f32 && shape.math == Math::Tf32) tolerance += std::ldexp(1.0, -9) * static_cast<double>(shape.k);
  const bool plain = shape.bias == BiasKind::None && shape.activation == Activation::None;
  if (!f32 || !plain) {
    const double max_c = detail::compare_matrix(ref.get() + off, ref.get() + off, c_outer, c_inner, ops.ldc, s).max_y;
    // The activations change an error by at most 1.13 times (GELU's largest slope) and add their
    // own, under 2^-15 of the value (fused_epilogue.cuh).
    if (!plain) tolerance = 1.13 * tolerance + std::ldexp(max_c, -15);
    if (!f32) tolerance += 2.0 * ref::unit_roundoff(t) * max_c;
  }
  return run.measure(
      problem, [&] { run.reset_output(c.get(), t, c0, ops.size_c); },
      [&](const std::string& config) {
        GemmOptions opt = math;
        opt.config = config;
        gemm(args, run.user_stream(), opt);
      },
      [&] {
        if (f32)
          return detail::compare_matrix(reinterpret_cast<const float*>(c.get()) + off, ref.get() + off, c_outer,
                                        c_inner, ops.ldc, s);
        detail::widen_to_f32(c.get(), t, c_wide.get(), ops.size_c, s);
        return detail::compare_matrix(c_wide.get() + off, ref.get() + off, c_outer, c_inner, ops.ldc, s);
      },
      tolerance);
}

TuneResult tune(const BsrShape& shape, const DeviceBsrMatrix& w, const TuneOptions& options) {
  check_bsr_shape(shape, w);
  detail::check_tune_options(options);
  detail::TuneRun run(options);
  const cudaStream_t s = run.stream();

  const bool xwt = shape.product == BsrProduct::Xwt;
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  const int64_t ldx = xwt ? k : n, ldy = n, size_x = xwt ? m * k : k * n, size_y = m * n;
  const float alpha = 1.0f, beta = shape.beta_zero ? 0.0f : 1.0f;

  // W expanded to dense (row-major, w.rows() x k) for the reference: level 5, a dense kernel family
  // no BSR config shares. The tolerance scales with max |W| (X is in [-1, 1]).
  const BsrMatrix host_w = w.to_host();
  std::vector<float> dense(static_cast<size_t>(host_w.rows * host_w.cols));
  bsr_to_dense(host_w, dense.data(), host_w.cols);
  float w_max = 0;
  for (float v : host_w.block_data) w_max = std::max(w_max, std::fabs(v));
  DeviceBuffer<float> x(size_x), y(size_y), ref(size_y), y0(shape.beta_zero ? 0 : size_y), wd(dense.size());
  TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(wd.get(), dense.data(), dense.size() * sizeof(float), cudaMemcpyHostToDevice, s));
  detail::fill_uniform(x.get(), size_x, 0x7B11, s);
  if (!shape.beta_zero) detail::fill_uniform(y0.get(), size_y, 0x7B12, s);
  run.reset_output(ref.get(), shape.beta_zero ? nullptr : y0.get(), size_y);
  GemmOptions level5;
  level5.kernel = Kernel::Vectorized;
  if (xwt)
    sgemm(Layout::RowMajor, Op::N, Op::T, m, n, k, alpha, x.get(), ldx, wd.get(), k, beta, ref.get(), ldy,
          run.user_stream(), level5);
  else
    sgemm(Layout::RowMajor, Op::N, Op::N, m, n, k, alpha, wd.get(), k, x.get(), ldx, beta, ref.get(), ldy,
          run.user_stream(), level5);

  const ops::Problem problem =
      ops::bsr_call(xwt ? ops::OpKind::BsrXwt : ops::OpKind::BsrWx, m, n, k, alpha, x.get(), ldx, w, beta, y.get(), ldy)
          .problem;
  return run.measure(
      problem, [&] { run.reset_output(y.get(), shape.beta_zero ? nullptr : y0.get(), size_y); },
      [&](const std::string& config) {
        BsrOptions opt;
        opt.config = config;
        if (xwt) bsr_xwt(m, n, k, alpha, x.get(), ldx, w, beta, y.get(), ldy, run.user_stream(), opt);
        else bsr_wx(m, n, k, alpha, w, x.get(), ldx, beta, y.get(), ldy, run.user_stream(), opt);
      },
      [&] { return detail::compare_matrix(y.get(), ref.get(), m, n, ldy, s); },
      2.0 * ref::fp32_gemm_error_bound(k) * std::max(1.0f, w_max));
}

}  // namespace tilegemm
