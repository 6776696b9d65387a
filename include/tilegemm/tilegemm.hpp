// Umbrella header for the tilegemm library.
#pragma once
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/log.hpp"
#include "tilegemm/tune.hpp"
