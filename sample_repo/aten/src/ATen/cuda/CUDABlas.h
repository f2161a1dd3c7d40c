#pragma once

#include <c10/macros/Export.h>

#include <cstdint>

namespace at::cuda::blas {

// Column-major GEMM on the current stream, BLAS conventions:
//   c = alpha * op(a) * op(b) + beta * c, with transa/transb in {'n','t'}.
template <typename Dtype>
void gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, Dtype alpha,
          const Dtype* a, int64_t lda, const Dtype* b, int64_t ldb, Dtype beta, Dtype* c,
          int64_t ldc);

template <>
TORCH_API void gemm<float>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                           float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float beta, float* c, int64_t ldc);
template <>
TORCH_API void gemm<double>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                            double alpha, const double* a, int64_t lda, const double* b,
                            int64_t ldb, double beta, double* c, int64_t ldc);

} // namespace at::cuda::blas
