// CPU reference implementation of the cuBLAS (v2) API declared in
// cublas_v2.h. Matrices are column-major, exactly as in BLAS: element (i, j)
// of an m x n matrix with leading dimension ld is at [i + j * ld].
//
// Built with -finstrument-functions: only the cublas* entry points may appear
// as traced frames, so helpers carry CUBLAS_INTERNAL and no C++ library
// templates are used.
#include "cublas_v2.h"

#include <stdlib.h>

#define CUBLAS_INTERNAL __attribute__((no_instrument_function))

struct cublasContext {
  cudaStream_t stream;
  cublasMath_t math_mode;
};

namespace {

CUBLAS_INTERNAL bool is_valid_operation(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

CUBLAS_INTERNAL int at_least_one(int value) { return value > 1 ? value : 1; }

// C = alpha * op(A) * op(B) + beta * C. Products are summed in double (as
// the CPU reference in ATen does), so float results are correctly rounded
// sums rather than depending on a summation order. For real matrices
// CUBLAS_OP_C is the plain transpose.
template <typename T>
CUBLAS_INTERNAL cublasStatus_t gemm(cublasHandle_t handle, cublasOperation_t transa,
                                    cublasOperation_t transb, int m, int n, int k,
                                    const T* alpha, const T* A, int lda, const T* B, int ldb,
                                    const T* beta, T* C, int ldc) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!is_valid_operation(transa) || !is_valid_operation(transb)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const bool a_plain = transa == CUBLAS_OP_N;
  const bool b_plain = transb == CUBLAS_OP_N;
  // op(A) is m x k, so A itself has m (plain) or k (transposed) rows.
  if (m < 0 || n < 0 || k < 0 || lda < at_least_one(a_plain ? m : k) ||
      ldb < at_least_one(b_plain ? k : n) || ldc < at_least_one(m)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  if (alpha == nullptr || beta == nullptr || C == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const T scale = *alpha;
  const T keep = *beta;
  const bool reads_products = scale != T(0) && k > 0;
  if (reads_products && (A == nullptr || B == nullptr)) return CUBLAS_STATUS_INVALID_VALUE;

  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0.0;
      if (reads_products) {
        for (int l = 0; l < k; ++l) {
          const T a = a_plain ? A[i + static_cast<long long>(l) * lda]
                              : A[l + static_cast<long long>(i) * lda];
          const T b = b_plain ? B[l + static_cast<long long>(j) * ldb]
                              : B[j + static_cast<long long>(l) * ldb];
          sum += static_cast<double>(a) * static_cast<double>(b);
        }
      }
      T& out = C[i + static_cast<long long>(j) * ldc];
      // With beta == 0, C is output only: whatever it held (NaN included)
      // must not leak into the result.
      const double previous = keep == T(0) ? 0.0 : static_cast<double>(keep) * out;
      out = static_cast<T>(static_cast<double>(scale) * sum + previous);
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  cublasContext* context = static_cast<cublasContext*>(malloc(sizeof(cublasContext)));
  if (context == nullptr) return CUBLAS_STATUS_ALLOC_FAILED;
  context->stream = nullptr;
  context->math_mode = CUBLAS_DEFAULT_MATH;
  *handle = context;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  free(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = streamId;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* streamId) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (streamId == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *streamId = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

// TF32 mode permits, but does not oblige, reduced-precision products; this
// implementation always computes at full precision.
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_DEFAULT_MATH && mode != CUBLAS_TF32_TENSOR_OP_MATH) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  handle->math_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN_ERROR";
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float* alpha,
                           const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
  return gemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const double* alpha,
                           const double* A, int lda, const double* B, int ldb,
                           const double* beta, double* C, int ldc) {
  return gemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // extern "C"
