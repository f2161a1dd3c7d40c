#pragma once

#include <c10/macros/Export.h>

#include <cstdint>

namespace at::native::cpublas {

enum class TransposeType { NoTranspose, Transpose };

// Reference column-major GEMM: c = alpha * op(a) * op(b) + beta * c,
// op(a) is m x k, op(b) is k x n, c is m x n.
TORCH_API void gemm(TransposeType transa, TransposeType transb, int64_t m, int64_t n, int64_t k,
                    float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                    float beta, float* c, int64_t ldc);
TORCH_API void gemm(TransposeType transa, TransposeType transb, int64_t m, int64_t n, int64_t k,
                    double alpha, const double* a, int64_t lda, const double* b, int64_t ldb,
                    double beta, double* c, int64_t ldc);

} // namespace at::native::cpublas
