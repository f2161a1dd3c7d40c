#pragma once

#include <c10/macros/Export.h>

#include <cstdint>
#include <type_traits>

namespace at::cuda::blas {

// A condition that depends on a template parameter and is never true: a primary template
// asserting it compiles, and fails only where something instantiates it.
template <typename T>
struct false_t : std::false_type {};

// Column-major GEMM on the current stream, BLAS conventions:
//   c = alpha * op(a) * op(b) + beta * c, with transa/transb in {'n','t'}.
// Only the explicit specialisations below exist (CUDABlas.cpp); the primary template rejects
// any other Dtype at compile time.
template <typename Dtype>
inline void gemm(char, char, int64_t, int64_t, int64_t, Dtype, const Dtype*, int64_t,
                 const Dtype*, int64_t, Dtype, Dtype*, int64_t) {
  static_assert(false_t<Dtype>::value, "at::cuda::blas::gemm: not implemented for this type");
}

template <>
TORCH_API void gemm<float>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                           float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float beta, float* c, int64_t ldc);
template <>
TORCH_API void gemm<double>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                            double alpha, const double* a, int64_t lda, const double* b,
                            int64_t ldb, double beta, double* c, int64_t ldc);

// What gemm runs on the default backend (cuBLAS): one vendor call per type, chosen by
// specialisation as well.
template <typename Dtype>
inline void gemm_internal(char, char, int64_t, int64_t, int64_t, Dtype, const Dtype*, int64_t,
                          const Dtype*, int64_t, Dtype, Dtype*, int64_t) {
  static_assert(false_t<Dtype>::value,
                "at::cuda::blas::gemm_internal: not implemented for this type");
}

template <>
TORCH_API void gemm_internal<float>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                    float alpha, const float* a, int64_t lda, const float* b,
                                    int64_t ldb, float beta, float* c, int64_t ldc);
template <>
TORCH_API void gemm_internal<double>(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                     double alpha, const double* a, int64_t lda, const double* b,
                                     int64_t ldb, double beta, double* c, int64_t ldc);

} // namespace at::cuda::blas
