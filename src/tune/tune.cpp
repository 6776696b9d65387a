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
  int64_t size_a = 0, size_b = 0, size_c = 0;  // elements to allocate, offset included
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
  ops.size_a = s.offset + ops.stored.a.extent(s.layout, ops.lda);
  ops.size_b = s.offset + ops.stored.b.extent(s.layout, ops.ldb);
  ops.size_c = s.offset + ops.stored.c.extent(s.layout, ops.ldc);
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
  const std::pair<DeviceBuffer<float>*, DeviceBuffer<unsigned char>*> fills[] = {
      {&a32, &a16}, {&b32, &b16}, {&c0_32, &c0_16}};
  const uint64_t seeds[] = {0x7A11, 0x7A12, 0x7A13};
  for (int i = 0; i < 3; ++i) {
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

  // The reference: level 5 on the FP32 copies, a kernel family none of the candidates shares, with
  // 64-bit offsets.
  run.reset_output(ref.get(), shape.beta_zero ? nullptr : c0_32.get(), ops.size_c);
  GemmOptions level5;
  level5.kernel = Kernel::Vectorized;
  const float alpha = 1.0f, beta = shape.beta_zero ? 0.0f : 1.0f;
  sgemm(shape.layout, shape.op_a, shape.op_b, shape.m, shape.n, shape.k, alpha, a32.get() + off, ops.lda,
        b32.get() + off, ops.ldb, beta, ref.get() + off, ops.ldc, run.user_stream(), level5);

  GemmArgs args;
  args.layout = shape.layout;
  args.op_a = shape.op_a;
  args.op_b = shape.op_b;
  args.m = shape.m;
  args.n = shape.n;
  args.k = shape.k;
  args.a = MatrixArg{t, at(a), ops.lda, 0};
  args.b = MatrixArg{t, at(b), ops.ldb, 0};
  args.c = OutputArg{t, c.get() + off * bytes, ops.ldc, 0};
  args.epilogue = Epilogue{alpha, beta};
  GemmOptions math;
  math.math = shape.math;
  const ops::Problem problem = ops::gemm_call(args, math).problem;
  const int64_t outer = ops.stored.c.rows, inner = ops.stored.c.cols;
  const int64_t c_outer = shape.layout == Layout::RowMajor ? outer : inner;
  const int64_t c_inner = shape.layout == Layout::RowMajor ? inner : outer;
  // Ours and level 5's FP32 rounding (|A|, |B| <= 1); a 16-bit C is also rounded once to its type,
  // up to a unit roundoff of the largest |C| (2^-8 bf16, 2^-11 f16).
  double tolerance = 2.0 * ref::fp32_gemm_error_bound(shape.k);
  // TF32 math cuts both operands to 10-bit mantissas: up to 2^-9 of each product.
  if (f32 && shape.math == Math::Tf32) tolerance += std::ldexp(1.0, -9) * static_cast<double>(shape.k);
  if (!f32) {
    const double max_c = detail::compare_matrix(ref.get() + off, ref.get() + off, c_outer, c_inner, ops.ldc, s).max_y;
    tolerance += 2.0 * ref::unit_roundoff(t) * max_c;
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
