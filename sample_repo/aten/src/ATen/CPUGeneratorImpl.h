#pragma once

#include <c10/macros/Export.h>

#include <cstdint>
#include <mutex>
#include <random>

namespace at {

// Seed of the default generators until torch.manual_seed changes it.
constexpr uint64_t default_rng_seed_val = 67280421310721ull;

// The default CPU random number generator: a Mersenne Twister behind a seed.
// Kernels draw from engine(); torch.manual_seed reseeds it. Callers that may
// run concurrently hold `mutex_` while drawing, as in the real tree.
struct TORCH_API CPUGeneratorImpl {
  explicit CPUGeneratorImpl(uint64_t seed_in = default_rng_seed_val);

  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const { return seed_; }
  std::mt19937& engine() { return engine_; }

  std::mutex mutex_;

 private:
  uint64_t seed_;
  std::mt19937 engine_;
};

namespace detail {

TORCH_API CPUGeneratorImpl& getDefaultCPUGenerator();

} // namespace detail
} // namespace at
