#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

namespace at {
namespace native {

// New tensor sharing self's storage with different geometry.
static Tensor alias_with_sizes_and_strides(const Tensor& self, std::vector<int64_t> sizes,
                                           std::vector<int64_t> strides) {
  const c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  return Tensor(std::make_shared<c10::TensorImpl>(impl->storage(), impl->dtype(),
                                                  std::move(sizes), std::move(strides),
                                                  impl->storage_offset()));
}

Tensor t(const Tensor& self) {
  TORCH_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ",
              self.dim(), "D");
  if (self.dim() < 2) {
    return alias_with_sizes_and_strides(self, self.sizes().vec(), self.strides().vec());
  }
  return alias_with_sizes_and_strides(self, {self.size(1), self.size(0)},
                                      {self.stride(1), self.stride(0)});
}

} // namespace native
} // namespace at
