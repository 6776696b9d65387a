// The tuner: measures the configs that can run a product on this GPU and stores the fastest in the
// tuning database, which Kernel::Auto consults before its analytic model (docs/tuning.md).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {

// A dense product to tune: what a config's legality and speed depend on. The tuner allocates and
// fills its own operands (uniform in [-1, 1], rounded to `dtype`) with these leading dimensions and
// offsets; batches lie one whole stored matrix (rows or columns x ld) apart, and a bias is a vector in
// C's type. A batch or an epilogue is part of the stored key (ops/keys.hpp): the winner serves calls
// with the same ones, and a call without a tuned entry of its own falls back to the plain product's.
struct GemmShape {
  DType dtype = DType::F32;  // A, B and C: F32, BF16 or F16 (FP32 accumulation)
  Math math = Math::Fp32;    // F32 products: the math the configs may use (Math::Tf32 adds TF32 tensor cores)
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  int64_t m = 0, n = 0, k = 0;  // each >= 1
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: the tight leading dimension
  int64_t offset = 0;           // elements every matrix starts into its buffer (1 breaks 16-byte alignment)
  bool beta_zero = true;        // C not read (beta == 0), or read
  int64_t batch = 1;            // strided batches, 1 to 2^20
  BiasKind bias = BiasKind::None;            // the fused epilogue (Epilogue): a bias per row or column of C
  Activation activation = Activation::None;  // and an activation
};

// A block-sparse product to tune with a given W (tilegemm/bsr_gpu.hpp), sizes of the public product:
//   Xwt: Y[m, n] = X[m, k] * W[n, k]^T      Wx: Y[m, n] = W[m, k] * X[k, n]
// The tuner fills its own X (uniform in [-1, 1], tight leading dimensions) and Y. The best config
// depends on W only through its block shape, stored blocks and longest block row (the database key),
// so a random matrix with the statistics of the real one (generate_bsr) tunes it as well.
enum class BsrProduct { Xwt, Wx };
struct BsrShape {
  BsrProduct product = BsrProduct::Xwt;
  int64_t m = 0, n = 0, k = 0;  // each >= 1, and W's shape matches
  bool beta_zero = true;        // Y not read (beta == 0), or read
};

// One step of a tuning run, for progress displays.
struct TuneProgress {
  std::string problem;       // the database key of the product
  int measured = 0;          // configs measured so far
  int candidates = 0;        // legal configs
  std::string config;        // the one just measured
  double us = 0;             // its median time (0: it failed, see TuneCandidate::status)
  std::string best_config;   // the fastest so far
  double best_us = 0;
};

struct TuneOptions {
  double budget_s = 30;       // wall-clock budget of one product (its first measurement always runs)
  int max_measured = 12;      // configs to measure at most; 0: every legal config (exhaustive)
  double min_time_s = 0.05;   // timed runs of one config (at least 3), cold L2, median
  std::string database;       // empty: tuning_database_path()
  bool store = true;          // write the winner to the database
  // Also measure run-time compiled variants (NVRTC) of the model's two leading tile shapes (each
  // family's neighbours: a pipeline stage more or fewer, the other K-tile depth, ...; docs/tuning.md).
  bool run_time_configs = false;
  std::function<void(const TuneProgress&)> progress;  // after every measured config
  std::function<bool()> cancelled;                    // asked before every config: true stops early
};

struct TuneCandidate {
  std::string config;
  double predicted_us = 0;  // the model's time; 0 for a config without an estimate (measured after those with one)
  double measured_us = 0;   // median; 0 when not measured or it failed
  std::string status;       // "measured", "not measured", "wrong result: ...", "failed: ..."
};

struct TuneResult {
  std::string problem;      // the database key, e.g. "gemm f32 4096x4096x4096 NN a16 b16 beta0"
                            // ("gemm bf16.bf16.bf16 ..." for a 16-bit product)
                            // or "bsr xwt f32 4096x4096x4096 b32x32 nnzb1638 long13 x16 y16 beta0"
  std::string best_config;  // the fastest measured config
  double best_us = 0;
  std::string auto_config;  // what untuned Auto picks (the lowest estimate), measured in the same run
  double auto_us = 0;
  int measured = 0;
  bool exhaustive = false;  // every legal config was measured
  bool stopped = false;     // the budget ran out or `cancelled` said stop before the search was done
  bool stored = false;      // the database took the winner (false: not asked, or it holds a faster one)
  double seconds = 0;
  double compile_seconds = 0;  // of it, compiling (or loading from the disk cache) the run-time variants
  std::vector<TuneCandidate> candidates;  // every legal config: those with an estimate in its order, then the rest
};

// Both operations are tuned by one search over the registered kernel families (docs/tuning.md): every
// family's legal candidates, those with an estimate in the order of the estimates (corrected by each
// measurement), then those without one, until max_measured, the budget or `cancelled` stops it. With
// run_time_configs also the run-time compiled variants of the two leading tile shapes, and with
// max_measured == 0 a local search after: every config one move away from the best so far, round
// after round until a round finds nothing faster (at most 4 rounds).
//
// Tunes `shape` on the current device. Throws Error(InvalidArgument) naming the field for a bad
// shape or option, before anything is allocated; Error(OutOfMemory/CudaError) from the device.
TuneResult tune(const GemmShape& shape, const TuneOptions& options = {});
// Tunes a BSR product with W = `w` on the current device. The BSR families' candidates: each family's
// default config for the block shape (estimated by the BSR model), the compiled extra schedules no
// taller than a block row (16 rows at least), kernel 02 for batches <= 128 and kernel 01 for batches
// <= 16 (measured after the estimated ones).
TuneResult tune(const BsrShape& shape, const DeviceBsrMatrix& w, const TuneOptions& options = {});

// The database Auto reads: $TILEGEMM_TUNING_DB, else tuning.sqlite3 in $TILEGEMM_CACHE_DIR, else in
// $XDG_CACHE_HOME/tilegemm, else in ~/.cache/tilegemm. Read once per process and device.
std::string tuning_database_path();
// Makes the next Auto call read the database again (after it was replaced or the variables changed).
void reload_tuning_database();

}  // namespace tilegemm
