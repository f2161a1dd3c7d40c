#include <c10/core/TensorImpl.h>

#include <utility>

namespace c10 {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes,
                       std::vector<int64_t> strides, int64_t storage_offset)
    : storage_(std::move(storage)),
      dtype_(dtype),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset) {
  if (strides_.empty() && !sizes_.empty()) {
    strides_ = contiguous_strides(sizes_);
  }
  TORCH_CHECK(strides_.size() == sizes_.size(), "sizes and strides must have the same length");
  refresh();
}

int64_t TensorImpl::size(int64_t d) const {
  return sizes_[maybe_wrap_dim(d, dim())];
}

int64_t TensorImpl::stride(int64_t d) const {
  return strides_[maybe_wrap_dim(d, dim())];
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides,
                                       int64_t storage_offset) {
  sizes_ = sizes.vec();
  strides_ = strides.empty() ? contiguous_strides(sizes) : strides.vec();
  storage_offset_ = storage_offset;
  refresh();
}

std::vector<int64_t> TensorImpl::contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

// Recompute numel and the contiguity flag after a geometry change.
void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) {
    TORCH_CHECK(s >= 0, "negative dimension ", s);
    numel_ *= s;
  }
  is_contiguous_ = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = false;
      break;
    }
    expected *= sizes_[i];
  }
}

} // namespace c10
