// Assertions shared by the BSR GPU tests: a call that must throw InvalidArgument mentioning a
// phrase, exact equality of two host BSR matrices, and the empty matrices every BSR test runs.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tilegemm/bsr.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace bsr_test {

inline void expect_invalid(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "expected tilegemm::Error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << needle << "'";
  }
}

inline ::testing::AssertionResult same_matrix(const BsrMatrix& got, const BsrMatrix& want) {
  if (got.rows != want.rows || got.cols != want.cols || got.block_rows != want.block_rows ||
      got.block_cols != want.block_cols)
    return ::testing::AssertionFailure()
           << "shape " << got.rows << "x" << got.cols << " blocks " << got.block_rows << "x"
           << got.block_cols << ", expected " << want.rows << "x" << want.cols << " blocks "
           << want.block_rows << "x" << want.block_cols;
  if (got.index_pointer != want.index_pointer)
    return ::testing::AssertionFailure() << "index_pointer differs";
  if (got.block_indices != want.block_indices)
    return ::testing::AssertionFailure() << "block_indices differ";
  if (got.block_data.size() != want.block_data.size() ||
      (!got.block_data.empty() && std::memcmp(got.block_data.data(), want.block_data.data(),
                                              got.block_data.size() * sizeof(float)) != 0))
    return ::testing::AssertionFailure() << "block_data differs";
  return ::testing::AssertionSuccess();
}

// The empty cases: 48 x 0 (block rows, no columns), 0 x 24 (no block rows) and 0 x 0.
inline std::vector<BsrMatrix> empty_bsr_matrices() {
  BsrMatrix k0;  // 48 x 0
  k0.rows = 48;
  k0.block_rows = 16;
  k0.block_cols = 4;
  k0.index_pointer = {0, 0, 0, 0};
  BsrMatrix rows0;  // 0 x 24
  rows0.cols = 24;
  rows0.block_rows = 8;
  rows0.block_cols = 8;
  return {k0, rows0, BsrMatrix{}};
}

}  // namespace bsr_test
}  // namespace tilegemm
