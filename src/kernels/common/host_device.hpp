// TILEGEMM_HOST_DEVICE: a function of a header shared by kernels and host code (block shapes, shared
// memory sizes) that both sides call. NVRTC compiles device code only and refuses an unannotated
// function there; a host compiler has no __host__ / __device__.
#pragma once
#if defined(__CUDACC__)
#define TILEGEMM_HOST_DEVICE __host__ __device__
#else
#define TILEGEMM_HOST_DEVICE
#endif
