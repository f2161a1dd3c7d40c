#pragma once

#include <c10/macros/Macros.h>

namespace at::native {

// The functors reduction kernels fold with: the value of an empty reduction, how two partial
// results combine, and what the final accumulator becomes.
template <typename acc_t>
struct SumOps {
  C10_HOST_DEVICE acc_t identity() const { return acc_t(0); }
  C10_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return a + b; }
  C10_HOST_DEVICE acc_t project(acc_t a) const { return a; }
};

} // namespace at::native
