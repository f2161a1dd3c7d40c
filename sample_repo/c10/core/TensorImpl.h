#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/core/Storage.h>
#include <c10/macros/Export.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <vector>

namespace c10 {

// The shared state behind an at::Tensor: storage + geometry (sizes, strides,
// offset in elements) + dtype tag. Elements are always stored as float.
class C10_API TensorImpl {
 public:
  TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes,
             std::vector<int64_t> strides, int64_t storage_offset = 0);

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }

  const Storage& storage() const { return storage_; }
  Device device() const { return storage_.device(); }
  ScalarType dtype() const { return dtype_; }
  bool is_contiguous() const { return is_contiguous_; }

  // First element of this view.
  float* data() const {
    return static_cast<float*>(storage_.data()) + storage_offset_;
  }

  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides,
                             int64_t storage_offset);

  static std::vector<int64_t> contiguous_strides(IntArrayRef sizes);

 private:
  void refresh();

  Storage storage_;
  ScalarType dtype_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 0;
  bool is_contiguous_ = true;
};

// Wrap a possibly negative dimension index into [0, ndim).
inline int64_t maybe_wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;
  TORCH_CHECK(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [",
              -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

} // namespace c10
