#include <ATen/TensorIterator.h>
#include <ATen/native/ReduceOps.h>

namespace at {
namespace native {

static void sum_kernel_impl(TensorIteratorBase& iter) {
  const float* in = iter.input().data_ptr<float>();
  const int64_t n = iter.numel();
  double acc = 0.0;  // accumulate wider than the elements, as the real kernel does
  for (int64_t i = 0; i < n; ++i) {
    acc += in[i];
  }
  *iter.output().data_ptr<float>() = static_cast<float>(acc);
}

REGISTER_DISPATCH(sum_stub, &sum_kernel_impl);

} // namespace native
} // namespace at
