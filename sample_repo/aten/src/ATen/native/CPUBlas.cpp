#include <ATen/native/CPUBlas.h>

namespace at::native::cpublas {

namespace {

template <typename scalar_t>
inline scalar_t element(const scalar_t* m, int64_t ld, TransposeType trans, int64_t row,
                        int64_t col) {
  // column-major: (row, col) of op(M)
  return trans == TransposeType::NoTranspose ? m[row + col * ld] : m[col + row * ld];
}

template <typename scalar_t, typename acc_t>
void gemm_reference(TransposeType transa, TransposeType transb, int64_t m, int64_t n, int64_t k,
                    scalar_t alpha, const scalar_t* a, int64_t lda, const scalar_t* b,
                    int64_t ldb, scalar_t beta, scalar_t* c, int64_t ldc) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      acc_t acc = 0;
      for (int64_t l = 0; l < k; ++l) {
        acc += static_cast<acc_t>(element(a, lda, transa, i, l)) *
               static_cast<acc_t>(element(b, ldb, transb, l, j));
      }
      scalar_t& out = c[i + j * ldc];
      // BLAS rule: with beta == 0, c is write-only (may hold NaNs).
      out = beta == scalar_t(0) ? static_cast<scalar_t>(alpha * acc)
                                : static_cast<scalar_t>(alpha * acc + beta * out);
    }
  }
}

} // namespace

void gemm(TransposeType transa, TransposeType transb, int64_t m, int64_t n, int64_t k,
          float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
          float* c, int64_t ldc) {
  gemm_reference<float, double>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(TransposeType transa, TransposeType transb, int64_t m, int64_t n, int64_t k,
          double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
          double* c, int64_t ldc) {
  gemm_reference<double, double>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

} // namespace at::native::cpublas
