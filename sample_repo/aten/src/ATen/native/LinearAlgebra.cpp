#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/NativeMetaFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/CPUBlas.h>

#include <algorithm>

namespace at {
namespace meta {

TORCH_META_FUNC(addmm)(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                       const Scalar& beta, const Scalar& alpha) {
  (void)beta;
  (void)alpha;
  TORCH_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  TORCH_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (",
              mat1.size(0), "x", mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  TORCH_CHECK(self.dim() <= 2, "addmm: self must be at most 2-D, got ", self.dim(), "-D");
  TORCH_CHECK(self.device() == mat1.device() && mat1.device() == mat2.device(),
              "addmm: expected all tensors on the same device");
  set_output_raw_strided(0, {mat1.size(0), mat2.size(1)}, {}, mat1.options());
}

} // namespace meta

namespace native {

namespace {

using cpublas::TransposeType;

// How a 2-D view maps onto column-major BLAS storage of its transpose.
struct BlasOperand {
  Tensor owner;  // keeps a densified copy alive when one was needed
  const float* data;
  TransposeType trans;
  int64_t ld;
};

// Row-major (r x c) view `m` seen as the column-major (c x r) matrix m^T.
BlasOperand as_transposed_operand(const Tensor& m) {
  const int64_t rows = m.size(0);
  const int64_t cols = m.size(1);
  if (m.stride(1) == 1 && m.stride(0) >= std::max<int64_t>(1, cols)) {
    return {m, m.data_ptr<float>(), TransposeType::NoTranspose, m.stride(0)};
  }
  if (m.stride(0) == 1 && m.stride(1) >= std::max<int64_t>(1, rows)) {
    // e.g. weight.t(): already column-major, so m^T needs a transpose
    return {m, m.data_ptr<float>(), TransposeType::Transpose, m.stride(1)};
  }
  Tensor dense = m.contiguous();
  return {dense, dense.data_ptr<float>(), TransposeType::NoTranspose,
          std::max<int64_t>(1, cols)};
}

// result[i][j] = self broadcast to (M, N).
void copy_broadcast_bias(const Tensor& result, const Tensor& self) {
  const int64_t M = result.size(0);
  const int64_t N = result.size(1);
  const float* src = self.data_ptr<float>();
  float* dst = result.data_ptr<float>();
  const int64_t si = self.dim() == 2 && self.size(0) != 1 ? self.stride(0) : 0;
  const int64_t sj = self.dim() >= 1 && self.size(-1) != 1 ? self.stride(-1) : 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      dst[i * N + j] = src[i * si + j * sj];
    }
  }
}

void addmm_impl_cpu_(Tensor& result, const Tensor& self, const Tensor& m1, const Tensor& m2,
                     const Scalar& beta, const Scalar& alpha) {
  const int64_t M = m1.size(0);
  const int64_t K = m1.size(1);
  const int64_t N = m2.size(1);
  TORCH_CHECK(result.is_contiguous(), "addmm: out must be contiguous in the sample tree");
  if (result.numel() == 0) return;

  const float beta_v = beta.toFloat();
  if (beta_v != 0.0f) {
    TORCH_CHECK(self.numel() == 1 || self.size(-1) == N, "addmm: self of shape ", self.sizes(),
                " cannot broadcast to (", M, ", ", N, ")");
    copy_broadcast_bias(result, self);
  }
  if (K == 0) {
    // empty inner dimension: result = beta * self
    float* out = result.data_ptr<float>();
    for (int64_t i = 0; i < M * N; ++i) out[i] = beta_v == 0.0f ? 0.0f : beta_v * out[i];
    return;
  }

  // row-major result = m1 @ m2  <=>  column-major result^T = m2^T @ m1^T
  const BlasOperand a = as_transposed_operand(m2);
  const BlasOperand b = as_transposed_operand(m1);
  cpublas::gemm(a.trans, b.trans, N, M, K, alpha.toFloat(), a.data, a.ld, b.data, b.ld, beta_v,
                result.data_ptr<float>(), N);
}

} // namespace

TORCH_IMPL_FUNC(addmm_out_cpu)(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                               const Scalar& beta, const Scalar& alpha, const Tensor& result) {
  addmm_impl_cpu_(const_cast<Tensor&>(result), self, mat1, mat2, beta, alpha);
}

} // namespace native
} // namespace at
