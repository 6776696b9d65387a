// tilegemm._tilegemm: the library's entry points on raw device addresses, for the Python package
// (python/tilegemm/). The Python side turns framework arrays (torch, CuPy, JAX, any DLPack array)
// into addresses, leading dimensions and transposes; this module only releases the GIL, selects
// the array's device and calls the library. tilegemm::Error becomes ValueError (invalid argument)
// or RuntimeError (everything else) with the library's message.
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilegemm/tilegemm.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using tilegemm::Error;
using tilegemm::ErrorCode;

template <class T>
T* as_ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

tilegemm::Stream as_stream(uintptr_t handle) { return reinterpret_cast<tilegemm::Stream>(handle); }

// Makes `device` current for one call (the library works on the current device) and restores the
// caller's device after it, as a framework's device guard does.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (device < 0) return;
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      cudaGetLastError();
      return;  // no device: the library call reports it
    }
    if (previous_ != device) {
      if (cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        throw Error(ErrorCode::InvalidArgument,
                    "device " + std::to_string(device) + " is not a visible CUDA device");
      }
      switched_ = true;
    }
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

tilegemm::GemmOptions gemm_options(const std::string& kernel, const std::string& config, const std::string& math) {
  tilegemm::GemmOptions o;
  o.kernel = tilegemm::parse_kernel(kernel, "kernel");
  o.config = config;
  o.math = tilegemm::parse_math(math, "math");
  return o;
}

tilegemm::BsrOptions bsr_options(const std::string& kernel) {
  tilegemm::BsrOptions o;
  o.kernel = tilegemm::parse_bsr_kernel(kernel, "kernel");
  return o;
}

tilegemm::GemmArgs typed_args(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, uintptr_t a,
                              int64_t lda, uintptr_t b, int64_t ldb, float beta, uintptr_t c, int64_t ldc,
                              const std::string& dtype, int64_t batch, int64_t stride_a, int64_t stride_b,
                              int64_t stride_c);

// C = alpha * op(A) * op(B) + beta * C, row-major, for `batch` products whose operands sit
// stride_* elements apart (stride 0 broadcasts one operand over the batch): one product through
// tilegemm::sgemm (its argument names in errors), batches through the typed entry, which runs them
// in one launch where the chosen family can.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, uintptr_t a,
           int64_t lda, uintptr_t b, int64_t ldb, float beta, uintptr_t c, int64_t ldc,
           uintptr_t stream, int device, const std::string& kernel, const std::string& config,
           int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, const std::string& math) {
  const tilegemm::GemmOptions options = gemm_options(kernel, config, math);
  const tilegemm::Op op_a = trans_a ? tilegemm::Op::T : tilegemm::Op::N;
  const tilegemm::Op op_b = trans_b ? tilegemm::Op::T : tilegemm::Op::N;
  DeviceGuard guard(device);
  if (batch != 1)
    return tilegemm::gemm(typed_args(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, "float32", batch,
                                     stride_a, stride_b, stride_c),
                          as_stream(stream), options);
  tilegemm::sgemm(tilegemm::Layout::RowMajor, op_a, op_b, m, n, k, alpha, as_ptr<const float>(a), lda,
                  as_ptr<const float>(b), ldb, beta, as_ptr<float>(c), ldc, as_stream(stream), options);
}

tilegemm::DType dtype_of(const std::string& name) {
  if (name == "float32") return tilegemm::DType::F32;
  if (name == "bfloat16") return tilegemm::DType::BF16;
  if (name == "float16") return tilegemm::DType::F16;
  throw Error(ErrorCode::InvalidArgument, "dtype: '" + name + "' is not float32, bfloat16 or float16");
}

// The typed entry tilegemm::gemm(GemmArgs) for A, B and C all of `dtype` ("float32", "bfloat16",
// "float16"; FP32 accumulation), row-major, batches as in sgemm.
tilegemm::GemmArgs typed_args(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, uintptr_t a,
                              int64_t lda, uintptr_t b, int64_t ldb, float beta, uintptr_t c, int64_t ldc,
                              const std::string& dtype, int64_t batch, int64_t stride_a, int64_t stride_b,
                              int64_t stride_c) {
  const tilegemm::DType t = dtype_of(dtype);
  tilegemm::GemmArgs args;
  args.layout = tilegemm::Layout::RowMajor;
  args.op_a = trans_a ? tilegemm::Op::T : tilegemm::Op::N;
  args.op_b = trans_b ? tilegemm::Op::T : tilegemm::Op::N;
  args.m = m;
  args.n = n;
  args.k = k;
  args.batch = batch;
  args.a = {t, as_ptr<const void>(a), lda, stride_a};
  args.b = {t, as_ptr<const void>(b), ldb, stride_b};
  args.c = {t, as_ptr<void>(c), ldc, stride_c};
  args.epilogue.alpha = alpha;
  args.epilogue.beta = beta;
  return args;
}

// The fused epilogue's names: bias "none" | "row" | "column" (of the row-major C), activation "none" |
// "relu" | "gelu-tanh" | "gelu-erf" | "silu" (tilegemm::to_string's).
tilegemm::Epilogue epilogue_of(float alpha, float beta, uintptr_t bias, const std::string& bias_kind,
                               const std::string& bias_dtype, const std::string& activation) {
  tilegemm::Epilogue e;
  e.alpha = alpha;
  e.beta = beta;
  e.bias_kind = tilegemm::parse_bias_kind(bias_kind);
  e.activation = tilegemm::parse_activation(activation);
  e.bias = as_ptr<const void>(bias);
  e.bias_type = dtype_of(bias_dtype);
  return e;
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, uintptr_t a, int64_t lda,
          uintptr_t b, int64_t ldb, float beta, uintptr_t c, int64_t ldc, uintptr_t stream, int device,
          const std::string& kernel, const std::string& config, int64_t batch, int64_t stride_a, int64_t stride_b,
          int64_t stride_c, const std::string& math, const std::string& dtype, uintptr_t bias,
          const std::string& bias_kind, const std::string& bias_dtype, const std::string& activation) {
  const tilegemm::GemmOptions options = gemm_options(kernel, config, math);
  tilegemm::GemmArgs args = typed_args(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, dtype, batch,
                                       stride_a, stride_b, stride_c);
  args.epilogue = epilogue_of(alpha, beta, bias, bias_kind, bias_dtype.empty() ? dtype : bias_dtype, activation);
  DeviceGuard guard(device);
  tilegemm::gemm(args, as_stream(stream), options);
}

nb::dict explain(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, uintptr_t a,
                 int64_t lda, uintptr_t b, int64_t ldb, float beta, uintptr_t c, int64_t ldc,
                 int device, const std::string& kernel, const std::string& config, const std::string& math,
                 const std::string& dtype) {
  tilegemm::GemmChoice choice;
  {
    DeviceGuard guard(device);
    if (dtype == "float32")  // sgemm's argument names in the errors, as the float32 products run
      choice = tilegemm::explain_choice(tilegemm::Layout::RowMajor, trans_a ? tilegemm::Op::T : tilegemm::Op::N,
                                        trans_b ? tilegemm::Op::T : tilegemm::Op::N, m, n, k, alpha,
                                        as_ptr<const float>(a), lda, as_ptr<const float>(b), ldb, beta,
                                        as_ptr<const float>(c), ldc, gemm_options(kernel, config, math));
    else
      choice = tilegemm::explain_choice(
          typed_args(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, dtype, 1, 0, 0, 0),
          gemm_options(kernel, config, math));
  }
  nb::dict d;
  d["config"] = choice.config;
  d["kind"] = choice.kind;
  d["predicted_us"] = choice.predicted_us;
  d["reason"] = choice.reason;
  d["runners_up"] = choice.runners_up;
  return d;
}

// A BSR matrix prepared for the products (tilegemm::DeviceBsrMatrix): from device arrays (the
// framework keeps them alive), or adopted from arrays prepared before (torch custom ops pass them
// as tensors).
struct BsrHandle {
  tilegemm::DeviceBsrMatrix matrix;
  int device = -1;
};

BsrHandle bsr_from_device(uintptr_t block_data, uintptr_t block_indices, uintptr_t index_pointer,
                          bool int64_indices, int64_t rows, int64_t cols, int block_rows,
                          int block_cols, int64_t nnzb, uintptr_t stream, int device, bool validate) {
  tilegemm::DeviceBsrArrays arrays;
  arrays.block_data = as_ptr<const float>(block_data);
  arrays.block_indices = as_ptr<const void>(block_indices);
  arrays.index_pointer = as_ptr<const void>(index_pointer);
  arrays.index_type = int64_indices ? tilegemm::IndexType::Int64 : tilegemm::IndexType::Int32;
  arrays.rows = rows;
  arrays.cols = cols;
  arrays.block_rows = block_rows;
  arrays.block_cols = block_cols;
  arrays.nnzb = nnzb;
  DeviceGuard guard(device);
  int current = device;
  if (current < 0 && cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    current = 0;  // no device: from_device reports it
  }
  return BsrHandle{tilegemm::DeviceBsrMatrix::from_device(arrays, as_stream(stream), validate), current};
}

// The view of a prepared matrix: int32 index arrays, blocks, shape.
tilegemm::BsrView bsr_view(uintptr_t block_data, uintptr_t block_indices, uintptr_t index_pointer,
                           int64_t rows, int64_t cols, int block_rows, int block_cols, int64_t nnzb) {
  tilegemm::BsrView v;
  v.block_data = as_ptr<const float>(block_data);
  v.block_indices = as_ptr<const int32_t>(block_indices);
  v.index_pointer = as_ptr<const int32_t>(index_pointer);
  v.rows = rows;
  v.cols = cols;
  v.block_rows = block_rows;
  v.block_cols = block_cols;
  v.nnzb = nnzb;
  return v;
}

using HostIndexArray = nb::ndarray<const int32_t, nb::ndim<1>, nb::device::cpu, nb::c_contig>;

std::vector<int32_t> to_vector(const HostIndexArray& a) {
  return std::vector<int32_t>(a.data(), a.data() + a.shape(0));
}

// Y = alpha * X * W^T + beta * Y (xwt) or Y = alpha * W * X + beta * Y, W a prepared matrix.
void bsr_product(bool xwt, int64_t m, int64_t n, int64_t k, float alpha, uintptr_t x, int64_t ldx,
                 const tilegemm::DeviceBsrMatrix& w, float beta, uintptr_t y, int64_t ldy,
                 uintptr_t stream, const std::string& kernel) {
  const tilegemm::BsrOptions options = bsr_options(kernel);
  if (xwt)
    tilegemm::bsr_xwt(m, n, k, alpha, as_ptr<const float>(x), ldx, w, beta, as_ptr<float>(y), ldy,
                      as_stream(stream), options);
  else
    tilegemm::bsr_wx(m, n, k, alpha, w, as_ptr<const float>(x), ldx, beta, as_ptr<float>(y), ldy,
                     as_stream(stream), options);
}

// The DLPack element type of a matmul dtype: bfloat16 has its own type code (kDLBfloat).
nb::dlpack::dtype dlpack_dtype(tilegemm::DType t) {
  if (t == tilegemm::DType::BF16) return {static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat), 16, 1};
  if (t == tilegemm::DType::F16) return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
  return nb::dtype<float>();
}

// A device buffer of rows x cols elements of `dtype` ("float32", "bfloat16", "float16") handed to a
// framework through DLPack (outputs for arrays whose framework has no allocator we can call, e.g.
// JAX): (capsule, address). The capsule frees the buffer when the framework drops its last
// reference; the address lets the product write it first.
nb::tuple empty_device(int64_t rows, int64_t cols, int device, const std::string& dtype) {
  if (rows < 0 || cols < 0)
    throw Error(ErrorCode::InvalidArgument,
                "empty: negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  const tilegemm::DType t = dtype_of(dtype);
  DeviceGuard guard(device);
  // An empty array gets a real allocation too: a capsule cannot hold a null pointer (nanobind aborts
  // the process), and DLPack consumers may refuse a null data pointer.
  const size_t bytes = std::max<size_t>(
      1, static_cast<size_t>(rows) * static_cast<size_t>(cols) * static_cast<size_t>(tilegemm::dtype_bytes(t)));
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error(e == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::CudaError,
                std::string("empty: cudaMalloc of ") + std::to_string(bytes) + " bytes failed: " +
                    cudaGetErrorString(e));
  }
  int current = 0;
  cudaGetDevice(&current);
  nb::capsule owner(p, [](void* q) noexcept { cudaFree(q); });
  const size_t shape[2] = {static_cast<size_t>(rows), static_cast<size_t>(cols)};
  // Without a framework tag nanobind returns the DLPack capsule itself.
  nb::ndarray<nb::device::cuda> array(p, 2, shape, owner, nullptr, dlpack_dtype(t), nb::device::cuda::value,
                                      current);
  return nb::make_tuple(nb::cast(array), reinterpret_cast<uintptr_t>(p));
}

// What a DLPack capsule or array describes, for arrays that expose neither torch's attributes nor
// __cuda_array_interface__: (address, shape, strides in elements, dtype code, bits, lanes,
// device type, device id). The caller keeps the source alive while it uses the address.
nb::tuple dlpack_describe(nb::ndarray<> a) {
  std::vector<int64_t> shape(a.ndim()), strides(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = static_cast<int64_t>(a.shape(i));
    strides[i] = a.stride(i);
  }
  const nb::dlpack::dtype t = a.dtype();
  return nb::make_tuple(reinterpret_cast<uintptr_t>(a.data()), shape, strides, int(t.code),
                        int(t.bits), int(t.lanes), a.device_type(), a.device_id());
}

}  // namespace

NB_MODULE(_tilegemm, m) {
  m.doc() = "tilegemm's C++ entry points on device addresses (use the tilegemm package instead)";
  // Prepared BSR matrices cached on torch tensors can outlive the interpreter's last collection;
  // nanobind would report them as leaks at exit.
  nb::set_leak_warnings(false);

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::InvalidArgument)
        PyErr_SetString(PyExc_ValueError, e.what());
      else
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  m.def("sgemm", &sgemm, "trans_a"_a, "trans_b"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "a"_a, "lda"_a,
        "b"_a, "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "stream"_a, "device"_a, "kernel"_a, "config"_a,
        "batch"_a = 1, "stride_a"_a = 0, "stride_b"_a = 0, "stride_c"_a = 0, "math"_a = "fp32",
        nb::call_guard<nb::gil_scoped_release>());
  m.def("gemm", &gemm, "trans_a"_a, "trans_b"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "a"_a, "lda"_a, "b"_a, "ldb"_a,
        "beta"_a, "c"_a, "ldc"_a, "stream"_a, "device"_a, "kernel"_a, "config"_a, "batch"_a = 1, "stride_a"_a = 0,
        "stride_b"_a = 0, "stride_c"_a = 0, "math"_a = "fp32", "dtype"_a = "float32", "bias"_a = 0,
        "bias_kind"_a = "none", "bias_dtype"_a = "", "activation"_a = "none", nb::call_guard<nb::gil_scoped_release>());
  m.def("explain_choice", &explain, "trans_a"_a, "trans_b"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "a"_a,
        "lda"_a, "b"_a, "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "device"_a, "kernel"_a, "config"_a, "math"_a = "fp32",
        "dtype"_a = "float32");

  // dynamic_attr: the Python side pins the source arrays on the handle (they hold the blocks).
  nb::class_<BsrHandle>(m, "DeviceBsr", nb::dynamic_attr())
      .def_prop_ro("rows", [](const BsrHandle& h) { return h.matrix.rows(); })
      .def_prop_ro("cols", [](const BsrHandle& h) { return h.matrix.cols(); })
      .def_prop_ro("block_rows", [](const BsrHandle& h) { return h.matrix.block_rows(); })
      .def_prop_ro("block_cols", [](const BsrHandle& h) { return h.matrix.block_cols(); })
      .def_prop_ro("nnzb", [](const BsrHandle& h) { return h.matrix.nnzb(); })
      .def_prop_ro("device", [](const BsrHandle& h) { return h.device; })
      .def_prop_ro("max_row_blocks", [](const BsrHandle& h) { return h.matrix.max_row_blocks(); })
      // Device addresses of the prepared int32 arrays (owned by this object or by the caller's
      // arrays) and the row order; valid while this object lives.
      .def_prop_ro("block_indices", [](const BsrHandle& h) {
        return reinterpret_cast<uintptr_t>(h.matrix.view().block_indices);
      })
      .def_prop_ro("index_pointer", [](const BsrHandle& h) {
        return reinterpret_cast<uintptr_t>(h.matrix.view().index_pointer);
      })
      .def_prop_ro("row_order", [](const BsrHandle& h) {
        return reinterpret_cast<uintptr_t>(h.matrix.row_order());
      })
      .def_prop_ro("row_lengths", [](const BsrHandle& h) { return h.matrix.row_lengths_longest_first(); })
      // The prepared int32 index arrays and the row order as DLPack arrays that keep this handle
      // (and through it the source arrays) alive: (block_indices, index_pointer, row_order).
      .def("prepared_arrays", [](nb::handle self) {
        const BsrHandle& h = nb::cast<const BsrHandle&>(self);
        const tilegemm::BsrView v = h.matrix.view();
        auto wrap = [&](const int32_t* p, int64_t count) {
          const size_t shape[1] = {static_cast<size_t>(count)};
          return nb::ndarray<int32_t, nb::device::cuda>(const_cast<int32_t*>(p), 1, shape, self,
                                                         nullptr, nb::dtype<int32_t>(),
                                                         nb::device::cuda::value, h.device);
        };
        return nb::make_tuple(wrap(v.block_indices, v.nnzb),
                              wrap(v.index_pointer, v.block_row_count() + 1),
                              wrap(h.matrix.row_order(), v.block_row_count()));
      });

  m.def("bsr_from_device", &bsr_from_device, "block_data"_a, "block_indices"_a, "index_pointer"_a,
        "int64_indices"_a, "rows"_a, "cols"_a, "block_rows"_a, "block_cols"_a, "nnzb"_a, "stream"_a,
        "device"_a, "validate"_a, nb::call_guard<nb::gil_scoped_release>());

  m.def(
      "bsr_product",
      [](bool xwt, int64_t mm, int64_t n, int64_t k, float alpha, uintptr_t x, int64_t ldx,
         const BsrHandle& w, float beta, uintptr_t y, int64_t ldy, uintptr_t stream,
         const std::string& kernel) {
        DeviceGuard guard(w.device);
        bsr_product(xwt, mm, n, k, alpha, x, ldx, w.matrix, beta, y, ldy, stream, kernel);
      },
      "xwt"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "x"_a, "ldx"_a, "w"_a, "beta"_a, "y"_a, "ldy"_a,
      "stream"_a, "kernel"_a, nb::call_guard<nb::gil_scoped_release>());

  // The same product on arrays prepared before by bsr_from_device and held by the caller
  // (torch custom ops receive them as tensors): no device work besides the product.
  m.def(
      "bsr_product_prepared",
      [](bool xwt, int64_t mm, int64_t n, int64_t k, float alpha, uintptr_t x, int64_t ldx,
         uintptr_t block_data, uintptr_t block_indices, uintptr_t index_pointer, int64_t rows,
         int64_t cols, int block_rows, int block_cols, int64_t nnzb, uintptr_t row_order,
         const HostIndexArray& row_lengths, float beta, uintptr_t y, int64_t ldy, uintptr_t stream,
         int device, const std::string& kernel) {
        std::vector<int32_t> lengths = to_vector(row_lengths);
        nb::gil_scoped_release release;
        DeviceGuard guard(device);
        const tilegemm::DeviceBsrMatrix w = tilegemm::DeviceBsrMatrix::borrow(
            bsr_view(block_data, block_indices, index_pointer, rows, cols, block_rows, block_cols, nnzb),
            as_ptr<const int32_t>(row_order), std::move(lengths));
        bsr_product(xwt, mm, n, k, alpha, x, ldx, w, beta, y, ldy, stream, kernel);
      },
      "xwt"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "x"_a, "ldx"_a, "block_data"_a, "block_indices"_a,
      "index_pointer"_a, "rows"_a, "cols"_a, "block_rows"_a, "block_cols"_a, "nnzb"_a,
      "row_order"_a, "row_lengths"_a, "beta"_a, "y"_a, "ldy"_a, "stream"_a, "device"_a, "kernel"_a);

  m.def("empty_device", &empty_device, "rows"_a, "cols"_a, "device"_a, "dtype"_a = "float32");
  m.def("dlpack_describe", &dlpack_describe, "array"_a);
  m.def("stream_synchronize", [](uintptr_t stream) {
    nb::gil_scoped_release release;
    const cudaError_t e = cudaStreamSynchronize(as_stream(stream));
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw Error(ErrorCode::CudaError, std::string("cudaStreamSynchronize: ") + cudaGetErrorString(e));
    }
  });

  m.def("device_count", &tilegemm::device_count);
  m.def("device_info", [] {
    const tilegemm::DeviceInfo i = tilegemm::current_device_info();
    nb::dict d;
    d["ordinal"] = i.ordinal;
    d["name"] = i.name;
    d["compute_capability"] = nb::make_tuple(i.cc_major, i.cc_minor);
    d["sm_count"] = i.sm_count;
    d["global_mem_bytes"] = i.global_mem_bytes;
    d["fp32_peak_tflops"] = i.fp32_peak_tflops();
    d["mem_bandwidth_gbs"] = i.mem_bandwidth_gbs();
    return d;
  });
  m.def("require_device", &tilegemm::require_supported_device);
  m.def("compiled_archs", &tilegemm::compiled_archs);
  m.def("ladder_levels", [] {
    std::vector<std::string> names;
    for (int i = 1; i <= tilegemm::kNumLadderLevels; ++i)
      names.push_back(tilegemm::to_string(static_cast<tilegemm::Kernel>(i)));
    return names;
  });
}
