#include <ATen/CPUGeneratorImpl.h>

namespace at {

namespace {

// All 64 bits of the seed matter, not only the low 32 the engine takes.
std::mt19937 make_engine(uint64_t seed) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  return std::mt19937(seq);
}

} // namespace

CPUGeneratorImpl::CPUGeneratorImpl(uint64_t seed_in)
    : seed_(seed_in), engine_(make_engine(seed_in)) {}

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  engine_ = make_engine(seed);
}

namespace detail {

CPUGeneratorImpl& getDefaultCPUGenerator() {
  static CPUGeneratorImpl default_gen_cpu;
  return default_gen_cpu;
}

} // namespace detail
} // namespace at
