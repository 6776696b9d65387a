// Helpers shared by the BSR CPU tests.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tilegemm/bsr.hpp"
#include "tilegemm/error.hpp"

namespace bsr_test {

// `call` throws tilegemm::Error(InvalidArgument) whose message contains `needle`.
inline void expect_error(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "expected tilegemm::Error mentioning '" << needle << "'";
  } catch (const tilegemm::Error& e) {
    EXPECT_EQ(e.code(), tilegemm::ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << needle << "'";
  }
}

// Uniform in [-1, 1); the tests' own inputs need not be identical across standard libraries.
inline void fill_random(std::vector<float>& v, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : v) x = dist(rng);
}

// Dense row-major rows x cols copy of m (ld = cols).
inline std::vector<float> to_dense(const tilegemm::BsrMatrix& m) {
  std::vector<float> d(static_cast<size_t>(m.rows * m.cols));
  tilegemm::bsr_to_dense(m, d.data(), m.cols > 0 ? m.cols : 1);
  return d;
}

}  // namespace bsr_test
