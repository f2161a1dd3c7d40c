#pragma once

#include <ATen/cuda/CUDAConfig.h>
#include <c10/cuda/CUDAException.h>
#include <c10/util/Exception.h>

#include <cublas_v2.h>
#if AT_CUDNN_ENABLED()
#include <cudnn.h>
#endif

#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)

#define TORCH_CUDABLAS_CHECK(EXPR)                                      \
  do {                                                                  \
    const cublasStatus_t __status = (EXPR);                             \
    TORCH_CHECK(__status == CUBLAS_STATUS_SUCCESS,                      \
                "CUDA error: ", cublasGetStatusString(__status),        \
                " when calling `" #EXPR "`");                           \
  } while (0)

#if AT_CUDNN_ENABLED()
// AT_CUDNN_CHECK(expr) or AT_CUDNN_CHECK(expr, extra message parts...)
#define AT_CUDNN_CHECK(...) AT_CUDNN_CHECK_IMPL_(__VA_ARGS__, "")
#define AT_CUDNN_CHECK_IMPL_(EXPR, ...)                                 \
  do {                                                                  \
    const cudnnStatus_t __status = (EXPR);                              \
    TORCH_CHECK(__status == CUDNN_STATUS_SUCCESS,                       \
                "cuDNN error: ", cudnnGetErrorString(__status),         \
                __VA_ARGS__);                                           \
  } while (0)
#endif
