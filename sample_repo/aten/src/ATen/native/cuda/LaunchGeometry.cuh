// Launch geometry shared by this folder's element-wise kernels. It names no namespace of its
// own: Dropout.cu includes it inside `namespace at::native`, as PyTorch includes some of its
// .cuh helpers, so what it defines is at::native's.
#pragma once

inline int elementwise_threads() {
  return 256;
}
