#pragma once

#include <c10/core/Device.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/SymIntArrayRef.h>
#include <c10/core/TensorImpl.h>
#include <c10/core/TensorOptions.h>
#include <c10/macros/Export.h>
#include <c10/util/ArrayRef.h>

#include <memory>
#include <optional>
#include <ostream>

namespace at {

class Tensor;
using TensorList = ArrayRef<Tensor>;

// Reference-counted handle to a c10::TensorImpl. Copies share storage.
//
// Methods in the "operators" block forward to the at:: functions of the op
// table (ATen/Functions.h) and are defined inline in ATen/core/Tensor.h.
// The rest are plain helpers implemented in ATen/core/Tensor.cpp; they touch
// memory from the host, which holds for CUDA tensors too only because the
// sample's CUDA runtime is a CPU stand-in.
class TORCH_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<c10::TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  c10::TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }

  // --- geometry ---
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  c10::SymIntArrayRef sym_sizes() const { return c10::fromIntArrayRefSlow(sizes()); }
  int64_t size(int64_t d) const { return impl_->size(d); }
  int64_t stride(int64_t d) const { return impl_->stride(d); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }

  // --- device / dtype ---
  c10::Device device() const { return impl_->device(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_mkldnn() const { return false; }
  ScalarType scalar_type() const { return impl_->dtype(); }
  TensorOptions options() const {
    return TensorOptions().device(device()).dtype(scalar_type());
  }

  // --- raw data ---
  template <typename T>
  T* data_ptr() const;
  void* data_ptr() const { return impl_->data(); }
  const void* const_data_ptr() const { return impl_->data(); }

  // --- helpers outside the op table (Tensor.cpp) ---
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& zero_() const { return fill_(0); }
  const Tensor& copy_(const Tensor& src) const;
  float item_float() const;

  // --- operators (inline, ATen/core/Tensor.h) ---
  Tensor t() const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor relu() const;
  Tensor& relu_() const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;

 private:
  std::shared_ptr<c10::TensorImpl> impl_;
};

// Only float buffers exist in this tree.
template <>
TORCH_API float* Tensor::data_ptr<float>() const;

TORCH_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

} // namespace at
