#include <ATen/CPUGeneratorImpl.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>

namespace at {

CUDAGeneratorImpl::CUDAGeneratorImpl(uint64_t seed_in) : seed_(seed_in), philox_offset_(0) {}

void CUDAGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_.store(seed);
  philox_offset_.store(0);
}

uint64_t CUDAGeneratorImpl::philox_offset_increment(uint64_t increment) {
  return philox_offset_.fetch_add(increment);
}

namespace cuda {
namespace detail {

CUDAGeneratorImpl& getDefaultCUDAGenerator() {
  static CUDAGeneratorImpl default_gen_cuda(default_rng_seed_val);
  return default_gen_cuda;
}

} // namespace detail
} // namespace cuda
} // namespace at
