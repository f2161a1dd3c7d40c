#include <ATen/cuda/CUDABlas.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/Exceptions.h>

#include <limits>

namespace at::cuda::blas {

namespace {

cublasOperation_t to_cublas_op(char trans) {
  switch (trans) {
    case 'n':
    case 'N':
      return CUBLAS_OP_N;
    case 't':
    case 'T':
      return CUBLAS_OP_T;
    case 'c':
    case 'C':
      return CUBLAS_OP_C;
  }
  AT_ERROR("to_cublas_op: unknown transpose flag '", trans, "'");
}

// cuBLAS takes int sizes; reject anything that would be truncated.
void check_gemm_sizes(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  constexpr int64_t int_max = std::numeric_limits<int>::max();
  TORCH_CHECK(m <= int_max && n <= int_max && k <= int_max && lda <= int_max &&
                  ldb <= int_max && ldc <= int_max,
              "cublas gemm: sizes exceed int range (m=", m, ", n=", n, ", k=", k, ")");
}

} // namespace

template <>
void gemm<float>(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  // cuBLAS is the only backend here (the real one may pick cuBLASLt or a tuned kernel)
  gemm_internal<float>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <>
void gemm<double>(char transa, char transb, int64_t m, int64_t n, int64_t k, double alpha,
                  const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                  double* c, int64_t ldc) {
  gemm_internal<double>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <>
void gemm_internal<float>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                          float beta, float* c, int64_t ldc) {
  check_gemm_sizes(m, n, k, lda, ldb, ldc);
  cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
  TORCH_CUDABLAS_CHECK(cublasSgemm(handle, to_cublas_op(transa), to_cublas_op(transb),
                                   static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                   &alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                                   &beta, c, static_cast<int>(ldc)));
}

template <>
void gemm_internal<double>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                           double alpha, const double* a, int64_t lda, const double* b,
                           int64_t ldb, double beta, double* c, int64_t ldc) {
  check_gemm_sizes(m, n, k, lda, ldb, ldc);
  cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
  TORCH_CUDABLAS_CHECK(cublasDgemm(handle, to_cublas_op(transa), to_cublas_op(transb),
                                   static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                   &alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                                   &beta, c, static_cast<int>(ldc)));
}

} // namespace at::cuda::blas
