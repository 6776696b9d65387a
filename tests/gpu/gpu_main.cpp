// GPU test main: skips (exit 77, CTest's SKIP_RETURN_CODE) when no CUDA device is present, so a
// GPU-less CI reports the GPU tests as skipped rather than passed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "tilegemm/device.hpp"

int main(int argc, char** argv) {
  const bool probe_only = argc > 1 && std::strcmp(argv[1], "--probe-device") == 0;
  if (tilegemm::device_count() == 0) {
    std::printf("no CUDA device: skipping the GPU tests\n");
    return 77;
  }
  if (probe_only) return 0;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
