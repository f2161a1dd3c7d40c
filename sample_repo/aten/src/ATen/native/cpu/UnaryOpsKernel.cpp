#include <ATen/TensorIterator.h>
#include <ATen/native/UnaryOps.h>

#include <cmath>

namespace at {
namespace native {

// cuda/UnaryOpsKernel.cu has a file-local exp_kernel too; each file registers its own.
static void exp_kernel(TensorIteratorBase& iter) {
  const float* in = iter.input().data_ptr<float>();
  float* out = iter.output().data_ptr<float>();
  const int64_t n = iter.numel();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = std::exp(in[i]);
  }
}

REGISTER_DISPATCH(exp_stub, &exp_kernel);

} // namespace native
} // namespace at
