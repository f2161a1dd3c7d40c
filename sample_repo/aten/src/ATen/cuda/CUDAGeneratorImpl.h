#pragma once

#include <c10/macros/Export.h>

#include <atomic>
#include <cstdint>

namespace at {

// The default CUDA generator: counter-based (Philox-style) kernels need no
// state on the device, only a seed and an offset. Every launch reserves
// `increment` counters past the current offset, so consecutive launches draw
// disjoint numbers; torch.manual_seed resets the seed and the offset.
struct TORCH_API CUDAGeneratorImpl {
  explicit CUDAGeneratorImpl(uint64_t seed_in);

  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const { return seed_.load(); }
  // Reserve `increment` counters; returns the first one.
  uint64_t philox_offset_increment(uint64_t increment);

 private:
  std::atomic<uint64_t> seed_;
  std::atomic<uint64_t> philox_offset_;
};

namespace cuda {
namespace detail {

TORCH_API CUDAGeneratorImpl& getDefaultCUDAGenerator();

} // namespace detail
} // namespace cuda
} // namespace at
