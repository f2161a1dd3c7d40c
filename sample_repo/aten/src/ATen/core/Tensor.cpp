#include <ATen/core/Tensor.h>

#include <c10/util/irange.h>

#include <vector>

namespace at {

namespace {

// Visit the storage offset of every element of a strided view, in
// row-major order of its logical index.
template <typename Fn>
void for_each_offset(IntArrayRef sizes, IntArrayRef strides, int64_t base, Fn&& fn) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  if (total == 0) return;
  std::vector<int64_t> idx(ndim, 0);
  int64_t offset = base;
  for (int64_t linear = 0; linear < total; ++linear) {
    fn(linear, offset);
    // odometer step from the innermost dim outward
    for (int64_t d = ndim - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t offset) {
  const c10::TensorImpl* impl = base.unsafeGetTensorImpl();
  return Tensor(std::make_shared<c10::TensorImpl>(impl->storage(), impl->dtype(),
                                                  std::move(sizes), std::move(strides), offset));
}

} // namespace

template <>
float* Tensor::data_ptr<float>() const {
  TORCH_CHECK(defined(), "data_ptr() on an undefined tensor");
  return impl_->data();
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = at::empty(sizes(), options());
  out.copy_(*this);
  return out;
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  std::vector<int64_t> target = shape.vec();
  int64_t known = 1;
  int64_t infer_at = -1;
  for (auto i : c10::irange(target.size())) {
    if (target[i] == -1) {
      TORCH_CHECK(infer_at < 0, "reshape: only one dimension can be inferred");
      infer_at = static_cast<int64_t>(i);
    } else {
      known *= target[i];
    }
  }
  if (infer_at >= 0) {
    TORCH_CHECK(known != 0 && numel() % known == 0, "reshape: shape ", shape,
                " is invalid for input of size ", numel());
    target[infer_at] = numel() / known;
    known *= target[infer_at];
  }
  TORCH_CHECK(known == numel(), "reshape: shape ", shape, " is invalid for input of size ",
              numel());
  // Contiguous inputs can be re-viewed; others are materialized first.
  Tensor src = contiguous();
  return make_view(src, target, c10::TensorImpl::contiguous_strides(target),
                   src.storage_offset());
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  dim = c10::maybe_wrap_dim(dim, this->dim());
  const int64_t n = size(dim);
  if (index < 0) index += n;
  TORCH_CHECK(index >= 0 && index < n, "select(): index ", index, " out of range for size ", n);
  std::vector<int64_t> sz = sizes().vec();
  std::vector<int64_t> st = strides().vec();
  const int64_t offset = storage_offset() + index * st[dim];
  sz.erase(sz.begin() + dim);
  st.erase(st.begin() + dim);
  return make_view(*this, sz, st, offset);
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  dim = c10::maybe_wrap_dim(dim, this->dim());
  TORCH_CHECK(start >= 0 && length >= 0 && start + length <= size(dim),
              "narrow(): range [", start, ", ", start + length, ") out of bounds for size ",
              size(dim));
  std::vector<int64_t> sz = sizes().vec();
  sz[dim] = length;
  return make_view(*this, sz, strides().vec(), storage_offset() + start * stride(dim));
}

const Tensor& Tensor::fill_(const Scalar& value) const {
  float* base = static_cast<float*>(impl_->storage().data());
  const float v = value.toFloat();
  for_each_offset(sizes(), strides(), storage_offset(),
                  [&](int64_t, int64_t off) { base[off] = v; });
  return *this;
}

const Tensor& Tensor::copy_(const Tensor& src) const {
  TORCH_CHECK(src.numel() == numel(), "copy_: size mismatch, ", sizes(), " vs ", src.sizes());
  // Gather the source in logical order, then scatter into this view.
  std::vector<float> staged(static_cast<size_t>(numel()));
  const float* sbase = static_cast<const float*>(src.unsafeGetTensorImpl()->storage().data());
  for_each_offset(src.sizes(), src.strides(), src.storage_offset(),
                  [&](int64_t i, int64_t off) { staged[i] = sbase[off]; });
  float* dbase = static_cast<float*>(impl_->storage().data());
  for_each_offset(sizes(), strides(), storage_offset(),
                  [&](int64_t i, int64_t off) { dbase[off] = staged[i]; });
  return *this;
}

float Tensor::item_float() const {
  TORCH_CHECK(numel() == 1, "item(): tensor has ", numel(), " elements");
  return *data_ptr<float>();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "Tensor(undefined)";
  return os << "Tensor(sizes=" << t.sizes() << ", device=" << t.device()
            << ", dtype=" << t.scalar_type() << ")";
}

} // namespace at
