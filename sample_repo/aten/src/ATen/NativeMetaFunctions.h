#pragma once

// Hand-written stand-in for the generated meta declarations: one class per
// structured op group, with the shape-checking meta() step.

#include <ATen/TensorMeta.h>
#include <ATen/core/TensorBody.h>

namespace at {
namespace meta {

struct TORCH_API structured_addmm : public at::impl::MetaBase {
  void meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
            const Scalar& alpha);
};

struct TORCH_API structured__softmax : public at::impl::MetaBase {
  void meta(const Tensor& self, int64_t dim, bool half_to_float);
};

struct TORCH_API structured_max_pool2d_with_indices : public at::impl::MetaBase {
  void meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
            IntArrayRef dilation, bool ceil_mode);
};

// add.Tensor / add.out share this class (TORCH_META_FUNC2(add, Tensor)).
struct TORCH_API structured_add_Tensor : public at::impl::MetaBase {
  void meta(const Tensor& self, const Tensor& other, const Scalar& alpha);
  c10::DeviceType device_type() const { return device_type_; }

 protected:
  c10::DeviceType device_type_ = c10::DeviceType::CPU;
};

} // namespace meta
} // namespace at
