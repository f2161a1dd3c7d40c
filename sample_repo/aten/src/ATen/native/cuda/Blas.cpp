#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDABlas.h>

#include <algorithm>

namespace at::native {

namespace {

// A row-major 2-D view prepared for cuBLAS as the column-major matrix of
// its transpose: transpose flag, leading dimension, and the tensor to read.
struct CublasMatrix {
  Tensor tensor;
  char trans;
  int64_t ld;
};

CublasMatrix prepare_matrix_for_cublas(const Tensor& m) {
  const int64_t rows = m.size(0);
  const int64_t cols = m.size(1);
  if (m.stride(1) == 1 && m.stride(0) >= std::max<int64_t>(1, cols)) {
    return {m, 'n', m.stride(0)};
  }
  if (m.stride(0) == 1 && m.stride(1) >= std::max<int64_t>(1, rows)) {
    return {m, 't', m.stride(1)};
  }
  return {m.contiguous(), 'n', std::max<int64_t>(1, cols)};
}

Tensor& addmm_out_cuda_impl(Tensor& result, const Tensor& self, const Tensor& mat1,
                            const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  TORCH_CHECK(self.is_cuda() && mat1.is_cuda() && mat2.is_cuda() && result.is_cuda(),
              "addmm_out_cuda: expected all tensors on a CUDA device");
  TORCH_CHECK(result.is_contiguous(), "addmm_out_cuda: out must be contiguous");
  const int64_t m = mat1.size(0);
  const int64_t k = mat1.size(1);
  const int64_t n = mat2.size(1);
  if (result.numel() == 0) return result;

  // row-major result = mat1 @ mat2  <=>  column-major result^T = mat2^T @ mat1^T
  const CublasMatrix a = prepare_matrix_for_cublas(mat2);
  const CublasMatrix b = prepare_matrix_for_cublas(mat1);

  AT_DISPATCH_FLOATING_TYPES(result.scalar_type(), "addmm_cuda", [&] {
    const scalar_t alpha_val = alpha.to<scalar_t>();
    at::cuda::blas::gemm<scalar_t>(a.trans, b.trans, n, m, k, alpha_val,
                                   a.tensor.data_ptr<scalar_t>(), a.ld,
                                   b.tensor.data_ptr<scalar_t>(), b.ld, scalar_t(0),
                                   result.data_ptr<scalar_t>(), n);
  });

  // Bias term on the device: result += beta * self (self broadcasts).
  if (!beta.equal(0.0)) {
    at::add_out(result, result, self, beta);
  }
  return result;
}

} // namespace

TORCH_IMPL_FUNC(addmm_out_cuda)(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                                const Scalar& beta, const Scalar& alpha, const Tensor& result) {
  addmm_out_cuda_impl(const_cast<Tensor&>(result), self, mat1, mat2, beta, alpha);
}

// mm on the device, float tensors only: the float specialisation of at::cuda::blas::gemm,
// named by its explicit template argument (addmm above picks it through AT_DISPATCH).
Tensor mm_cuda(const Tensor& self, const Tensor& mat2) {
  TORCH_CHECK(self.dim() == 2 && mat2.dim() == 2, "mm: expected 2-D tensors, got ", self.dim(),
              "-D and ", mat2.dim(), "-D");
  TORCH_CHECK(self.size(1) == mat2.size(0), "mm: shapes cannot be multiplied (", self.size(0),
              "x", self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  TORCH_CHECK(self.scalar_type() == kFloat && mat2.scalar_type() == kFloat,
              "mm_cuda: the bundled runtime supports float tensors only");
  const int64_t m = self.size(0);
  const int64_t k = self.size(1);
  const int64_t n = mat2.size(1);
  Tensor result = at::empty({m, n}, self.options());
  if (result.numel() == 0) return result;
  if (k == 0) {
    result.zero_();  // an empty sum
    return result;
  }

  // row-major result = self @ mat2  <=>  column-major result^T = mat2^T @ self^T
  const CublasMatrix a = prepare_matrix_for_cublas(mat2);
  const CublasMatrix b = prepare_matrix_for_cublas(self);
  at::cuda::blas::gemm<float>(a.trans, b.trans, n, m, k, 1.0f, a.tensor.data_ptr<float>(), a.ld,
                              b.tensor.data_ptr<float>(), b.ld, 0.0f, result.data_ptr<float>(), n);
  return result;
}

} // namespace at::native
