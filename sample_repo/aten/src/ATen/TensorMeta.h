#pragma once

#include <ATen/core/TensorBody.h>

namespace at {
namespace impl {

// Base of every structured_<op> meta class. The meta() step computes output
// geometry and reports it through set_output_*; the code that owns the
// outputs (functional / inplace / out wrappers) implements the virtuals.
struct TORCH_API MetaBase {
  MetaBase() = default;
  virtual ~MetaBase() = default;

  virtual const Tensor& maybe_get_output(int64_t output_idx) = 0;
  virtual void set_output_raw_strided(int64_t output_idx, IntArrayRef sizes,
                                      IntArrayRef strides_hint, TensorOptions options) = 0;

  void set_output_contiguous(int64_t output_idx, IntArrayRef sizes, TensorOptions options) {
    set_output_raw_strided(output_idx, sizes, {}, options);
  }
  const Tensor& maybe_get_output() { return maybe_get_output(0); }
};

} // namespace impl
} // namespace at

// Name the meta / impl member functions of the structured classes declared
// in ATen/NativeMetaFunctions.h and ATen/NativeFunctions.h.
#define TORCH_META_FUNC(name) void structured_##name::meta
#define TORCH_META_FUNC2(name, overload) void structured_##name##_##overload::meta
#define TORCH_IMPL_FUNC(name) void structured_##name::impl
