#pragma once

// Pulls in the Tensor class and the op wrappers, then defines the operator
// methods of Tensor in terms of those wrappers.
#include <ATen/Functions.h>
#include <ATen/core/TensorBody.h>

namespace at {

inline Tensor Tensor::t() const {
  return at::t(*this);
}

inline Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return at::index_select(*this, dim, index);
}

inline Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return at::softmax(*this, dim, dtype);
}

inline Tensor Tensor::relu() const {
  return at::relu(*this);
}

inline Tensor& Tensor::relu_() const {
  return at::relu_(const_cast<Tensor&>(*this));
}

inline Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                            const Scalar& alpha) const {
  return at::addmm(*this, mat1, mat2, beta, alpha);
}

inline Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  return at::add(*this, other, alpha);
}

} // namespace at
