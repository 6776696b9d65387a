// Argument checks shared by the BSR format code and the BSR CPU reference (library-internal).
// Each message starts with `prefix` (e.g. "dense_to_bsr: ") and names the argument and its value.
#pragma once
#include <cstdint>
#include <string>

#include "tilegemm/bsr.hpp"

namespace tilegemm {
namespace bsr_detail {

// Throws tilegemm::Error(InvalidArgument) with `msg`.
[[noreturn]] void invalid(const std::string& msg);

// Block shape >= 1, rows/cols in [0, 2^31 - 1] and divisible by the block shape. `member` is put
// before each member's name (e.g. "arrays." gives "arrays.rows = 60 is not divisible by
// arrays.block_rows = 16").
void check_shape(const char* prefix, int64_t rows, int64_t cols, int block_rows, int block_cols,
                 const char* member = "");

// validate_bsr_shape (bsr.hpp) with messages "<prefix><member>name ...": the one shape check of
// every BSR view, host or device (validate_bsr_shape uses prefix "bsr: " and no member prefix;
// DeviceBsrMatrix::from_device "DeviceBsrMatrix::from_device: " and "arrays.").
void check_view_shape(const char* prefix, const char* member, const BsrView& m);

// A row-major rows x cols array `name` with leading dimension `ld_name` = ld: ld >= max(cols, 1),
// non-null when it has elements.
void check_dense(const char* prefix, const char* name, const char* ld_name, const float* dense,
                 int64_t rows, int64_t cols, int64_t ld);

// Elements from the first to one past the last of a row-major rows x cols array (0 if empty);
// saturates instead of overflowing for absurd ld.
int64_t extent(int64_t rows, int64_t cols, int64_t ld);

// Whether [p, p + n) and [q, q + m) share memory (n, m in floats; the ends saturate).
bool overlaps(const float* p, int64_t n, const float* q, int64_t m);

}  // namespace bsr_detail
}  // namespace tilegemm
