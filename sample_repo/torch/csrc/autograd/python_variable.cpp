// Tensor utilities of the binding layer: what torch._C.TensorBase does in C++
// that is not an operator of native_functions.yaml (geometry queries, views,
// copies between devices and dtypes, fills, random initialization, and the
// transfer of element values to and from Python).
//
// Handles are `at::Tensor*` owned by the Python object that holds them. Every
// function that can fail returns a THPErrorCode and writes a message (see
// torch/csrc/utils/python_arg_parser.h); queries on a valid handle cannot fail.

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/Exceptions.h>
#include <c10/core/TensorImpl.h>
#include <torch/csrc/utils/python_arg_parser.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

namespace {

at::Tensor& THPTensor_unpack(void* handle) {
  return *static_cast<at::Tensor*>(handle);
}

void* THPTensor_newHandle(at::Tensor tensor) {
  return new at::Tensor(std::move(tensor));
}

c10::Device THPTensor_makeDevice(int64_t type, int64_t index) {
  TORCH_CHECK(type == static_cast<int64_t>(c10::DeviceType::CPU) ||
                  type == static_cast<int64_t>(c10::DeviceType::CUDA),
              "unsupported device type ", type);
  return c10::Device(static_cast<c10::DeviceType>(type), static_cast<c10::DeviceIndex>(index));
}

c10::ScalarType THPTensor_makeScalarType(int64_t dtype) {
  TORCH_CHECK(dtype >= 0 && dtype <= static_cast<int64_t>(c10::ScalarType::Bool),
              "unsupported dtype code ", dtype);
  return static_cast<c10::ScalarType>(dtype);
}

// Values a tensor of `dtype` can hold: integers are truncated toward zero,
// bools become 0/1. Storage is float for every dtype (see c10/core/ScalarType.h).
void THPTensor_convertValues(float* data, int64_t n, c10::ScalarType dtype) {
  if (dtype == c10::ScalarType::Long) {
    for (int64_t k = 0; k < n; ++k) data[k] = std::trunc(data[k]);
  } else if (dtype == c10::ScalarType::Bool) {
    for (int64_t k = 0; k < n; ++k) data[k] = data[k] != 0.0f ? 1.0f : 0.0f;
  }
}

// The elements of `src` in logical (row-major) order, in a new contiguous CPU
// tensor; CUDA memory is read through cudaMemcpy.
at::Tensor THPTensor_toHost(const at::Tensor& src) {
  if (src.is_cpu()) {
    // a fresh buffer: callers may modify it
    at::Tensor dense = src.contiguous();
    const bool shared = dense.unsafeGetTensorImpl()->storage().is_alias_of(
        src.unsafeGetTensorImpl()->storage());
    return shared ? dense.clone() : dense;
  }
  const at::Tensor dense = src.contiguous();
  at::Tensor host = at::empty(src.sizes(), at::TensorOptions(src.scalar_type()));
  if (host.numel() > 0) {
    AT_CUDA_CHECK(cudaMemcpy(host.data_ptr(), dense.data_ptr(),
                             static_cast<size_t>(host.numel()) * sizeof(float),
                             cudaMemcpyDeviceToHost));
  }
  return host;
}

// Write the contiguous CPU tensor `host` (same numel) into `dst`.
void THPTensor_fromHost(const at::Tensor& dst, const at::Tensor& host) {
  TORCH_CHECK(dst.numel() == host.numel(), "copy_: size mismatch, ", dst.sizes(), " vs ",
              host.sizes());
  if (dst.numel() == 0) return;
  if (dst.is_cpu()) {
    dst.copy_(host);
    return;
  }
  const size_t nbytes = static_cast<size_t>(host.numel()) * sizeof(float);
  if (dst.is_contiguous()) {
    AT_CUDA_CHECK(cudaMemcpy(dst.data_ptr(), host.data_ptr(), nbytes, cudaMemcpyHostToDevice));
    return;
  }
  at::Tensor staging = at::empty(dst.sizes(), dst.options());
  AT_CUDA_CHECK(cudaMemcpy(staging.data_ptr(), host.data_ptr(), nbytes, cudaMemcpyHostToDevice));
  dst.copy_(staging);
}

// dst.copy_(src) across devices and dtypes.
void THPTensor_copyImpl(const at::Tensor& dst, const at::Tensor& src) {
  TORCH_CHECK(dst.numel() == src.numel(), "copy_: size mismatch, ", dst.sizes(), " vs ",
              src.sizes());
  const bool converts = dst.scalar_type() != src.scalar_type() &&
                        (dst.scalar_type() == c10::ScalarType::Long ||
                         dst.scalar_type() == c10::ScalarType::Bool);
  if (!converts && dst.device() == src.device()) {
    if (dst.is_cuda() && dst.is_contiguous() && src.is_contiguous() && dst.numel() > 0) {
      AT_CUDA_CHECK(cudaMemcpy(dst.data_ptr(), src.data_ptr(),
                               static_cast<size_t>(dst.numel()) * sizeof(float),
                               cudaMemcpyDeviceToDevice));
    } else {
      dst.copy_(src);
    }
    return;
  }
  at::Tensor host = THPTensor_toHost(src);
  if (converts) THPTensor_convertValues(host.data_ptr<float>(), host.numel(), dst.scalar_type());
  THPTensor_fromHost(dst, host);
}

// Fill `self` from a host buffer of numel() values produced by `draw`.
template <class Draw>
void THPTensor_fillFromHost(const at::Tensor& self, Draw&& draw) {
  at::Tensor host = at::empty(self.sizes(), at::TensorOptions(self.scalar_type()));
  float* data = host.data_ptr<float>();
  {
    at::CPUGeneratorImpl& gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex_);
    std::mt19937& engine = gen.engine();
    const int64_t n = host.numel();
    for (int64_t k = 0; k < n; ++k) data[k] = draw(engine);
  }
  THPTensor_convertValues(data, host.numel(), self.scalar_type());
  THPTensor_fromHost(self, host);
}

} // namespace

extern "C" {

// ---------------------------------------------------------------- handles and queries

TORCH_API void THPTensor_free(void* handle) {
  delete static_cast<at::Tensor*>(handle);
}

// A second handle on the same tensor (detach, _make_subclass).
TORCH_API void* THPTensor_alias(void* handle) {
  return THPTensor_newHandle(THPTensor_unpack(handle));
}

// Identity of the underlying TensorImpl: handles with the same one are the same tensor.
TORCH_API void* THPTensor_unsafeGetTensorImpl(void* handle) {
  return THPTensor_unpack(handle).unsafeGetTensorImpl();
}

TORCH_API int64_t THPTensor_dim(void* handle) {
  return THPTensor_unpack(handle).dim();
}

TORCH_API void THPTensor_sizes(void* handle, int64_t* out) {
  const at::IntArrayRef sizes = THPTensor_unpack(handle).sizes();
  std::copy(sizes.begin(), sizes.end(), out);
}

TORCH_API void THPTensor_strides(void* handle, int64_t* out) {
  const at::IntArrayRef strides = THPTensor_unpack(handle).strides();
  std::copy(strides.begin(), strides.end(), out);
}

TORCH_API int64_t THPTensor_storage_offset(void* handle) {
  return THPTensor_unpack(handle).storage_offset();
}

TORCH_API int64_t THPTensor_numel(void* handle) {
  return THPTensor_unpack(handle).numel();
}

TORCH_API void THPTensor_device(void* handle, int64_t* type, int64_t* index) {
  const c10::Device device = THPTensor_unpack(handle).device();
  *type = static_cast<int64_t>(device.type());
  *index = static_cast<int64_t>(device.index());
}

TORCH_API int64_t THPTensor_dtype(void* handle) {
  return static_cast<int64_t>(THPTensor_unpack(handle).scalar_type());
}

// Address of the first element (float storage; device memory for CUDA tensors).
TORCH_API void* THPTensor_data_ptr(void* handle) {
  return THPTensor_unpack(handle).data_ptr();
}

TORCH_API int THPTensor_is_contiguous(void* handle) {
  return THPTensor_unpack(handle).is_contiguous() ? 1 : 0;
}

// Whether two handles share one allocation.
TORCH_API int THPTensor_is_alias_of(void* a, void* b) {
  const c10::TensorImpl* ia = THPTensor_unpack(a).unsafeGetTensorImpl();
  const c10::TensorImpl* ib = THPTensor_unpack(b).unsafeGetTensorImpl();
  return ia->storage().is_alias_of(ib->storage()) ? 1 : 0;
}

// ---------------------------------------------------------------- factories

// A new tensor of `sizes` on a device with a dtype, through aten::empty.
TORCH_API int THPTensor_new_empty(const int64_t* sizes, int64_t ndim, int64_t device_type,
                                  int64_t device_index, int64_t dtype, void** out, char* error,
                                  int64_t error_len) {
  HANDLE_TH_ERRORS
  at::Tensor tensor =
      at::empty(at::IntArrayRef(sizes, static_cast<size_t>(ndim)), THPTensor_makeScalarType(dtype),
                at::kStrided, THPTensor_makeDevice(device_type, device_index), std::nullopt,
                std::nullopt);
  *out = THPTensor_newHandle(std::move(tensor));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// Same, every element set to `value` (converted to the dtype).
TORCH_API int THPTensor_new_full(const int64_t* sizes, int64_t ndim, int64_t device_type,
                                 int64_t device_index, int64_t dtype, double value, void** out,
                                 char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  const c10::ScalarType st = THPTensor_makeScalarType(dtype);
  at::Tensor tensor =
      at::empty(at::IntArrayRef(sizes, static_cast<size_t>(ndim)), st, at::kStrided,
                THPTensor_makeDevice(device_type, device_index), std::nullopt, std::nullopt);
  float v = static_cast<float>(value);
  THPTensor_convertValues(&v, 1, st);
  tensor.fill_(v);
  *out = THPTensor_newHandle(std::move(tensor));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// ---------------------------------------------------------------- views and copies

// A view with the given geometry over the same storage (Tensor.as_strided).
TORCH_API int THPTensor_as_strided(void* handle, const int64_t* sizes, const int64_t* strides,
                                   int64_t ndim, int64_t storage_offset, void** out, char* error,
                                   int64_t error_len) {
  HANDLE_TH_ERRORS
  const at::Tensor& self = THPTensor_unpack(handle);
  const c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  std::vector<int64_t> sz(sizes, sizes + ndim);
  std::vector<int64_t> st(strides, strides + ndim);
  TORCH_CHECK(storage_offset >= 0, "as_strided: negative storage offset ", storage_offset);
  int64_t last = storage_offset;
  bool empty = false;
  for (int64_t d = 0; d < ndim; ++d) {
    TORCH_CHECK(sz[d] >= 0 && st[d] >= 0, "as_strided: negative size or stride");
    if (sz[d] == 0) empty = true;
    last += (sz[d] - 1) * st[d];
  }
  const int64_t capacity = static_cast<int64_t>(impl->storage().nbytes() / sizeof(float));
  TORCH_CHECK(empty || last < capacity, "as_strided: view of size ", at::IntArrayRef(sz),
              " and stride ", at::IntArrayRef(st), " at offset ", storage_offset,
              " is out of bounds for a storage of ", capacity, " elements");
  *out = THPTensor_newHandle(at::Tensor(std::make_shared<c10::TensorImpl>(
      impl->storage(), impl->dtype(), std::move(sz), std::move(st), storage_offset)));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

TORCH_API int THPTensor_contiguous(void* handle, void** out, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  *out = THPTensor_newHandle(THPTensor_unpack(handle).contiguous());
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

TORCH_API int THPTensor_clone(void* handle, void** out, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  const at::Tensor& self = THPTensor_unpack(handle);
  at::Tensor result = at::empty(self.sizes(), self.options());
  THPTensor_copyImpl(result, self);
  *out = THPTensor_newHandle(std::move(result));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

TORCH_API int THPTensor_reshape(void* handle, const int64_t* sizes, int64_t ndim, void** out,
                                char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  *out = THPTensor_newHandle(
      THPTensor_unpack(handle).reshape(at::IntArrayRef(sizes, static_cast<size_t>(ndim))));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// dst.copy_(src): any devices, any dtypes, same number of elements.
TORCH_API int THPTensor_copy_(void* dst, void* src, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  THPTensor_copyImpl(THPTensor_unpack(dst), THPTensor_unpack(src));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// A copy of the tensor on another device and/or with another dtype (Tensor.to);
// CPU <-> CUDA goes through cudaMemcpy.
TORCH_API int THPTensor_to(void* handle, int64_t device_type, int64_t device_index, int64_t dtype,
                           void** out, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  const at::Tensor& self = THPTensor_unpack(handle);
  at::Tensor result =
      at::empty(self.sizes(), THPTensor_makeScalarType(dtype), at::kStrided,
                THPTensor_makeDevice(device_type, device_index), std::nullopt, std::nullopt);
  THPTensor_copyImpl(result, self);
  *out = THPTensor_newHandle(std::move(result));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// ---------------------------------------------------------------- fills

TORCH_API int THPTensor_fill_(void* handle, double value, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  const at::Tensor& self = THPTensor_unpack(handle);
  float v = static_cast<float>(value);
  THPTensor_convertValues(&v, 1, self.scalar_type());
  self.fill_(v);
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// U(from, to) from the default CPU generator (for CUDA tensors too: the
// values are drawn on the host and copied over).
TORCH_API int THPTensor_uniform_(void* handle, double from, double to, char* error,
                                 int64_t error_len) {
  HANDLE_TH_ERRORS
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  std::uniform_real_distribution<double> uniform(from, to);
  THPTensor_fillFromHost(THPTensor_unpack(handle),
                         [&](std::mt19937& engine) { return static_cast<float>(uniform(engine)); });
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// N(mean, std^2) from the default CPU generator.
TORCH_API int THPTensor_normal_(void* handle, double mean, double std, char* error,
                                int64_t error_len) {
  HANDLE_TH_ERRORS
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  std::normal_distribution<double> normal(mean, std > 0 ? std : 1.0);
  THPTensor_fillFromHost(THPTensor_unpack(handle), [&](std::mt19937& engine) {
    return static_cast<float>(std > 0 ? normal(engine) : mean);
  });
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// ---------------------------------------------------------------- element transfer

// The numel() elements in row-major order, as floats, into `out` (item, tolist).
TORCH_API int THPTensor_read(void* handle, float* out, int64_t n, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  const at::Tensor& self = THPTensor_unpack(handle);
  TORCH_CHECK(n == self.numel(), "read: buffer of ", n, " for ", self.numel(), " elements");
  if (n == 0) return THP_OK;
  at::Tensor host = THPTensor_toHost(self);
  std::memcpy(out, host.data_ptr(), static_cast<size_t>(n) * sizeof(float));
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

// Overwrite the numel() elements from `values`, row-major (torch.tensor(data)).
TORCH_API int THPTensor_write(void* handle, const float* values, int64_t n, char* error,
                              int64_t error_len) {
  HANDLE_TH_ERRORS
  const at::Tensor& self = THPTensor_unpack(handle);
  TORCH_CHECK(n == self.numel(), "write: ", n, " values for ", self.numel(), " elements");
  at::Tensor host = at::empty(self.sizes(), at::TensorOptions(self.scalar_type()));
  if (n > 0) std::memcpy(host.data_ptr(), values, static_cast<size_t>(n) * sizeof(float));
  THPTensor_convertValues(host.data_ptr<float>(), n, self.scalar_type());
  THPTensor_fromHost(self, host);
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

} // extern "C"
