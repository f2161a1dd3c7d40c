#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/native/DispatchStub.h>

namespace at {
namespace native {

// iter.output() = f(iter.input()), element-wise.
using unary_fn = void (*)(TensorIteratorBase& iter);

DECLARE_DISPATCH(unary_fn, exp_stub);

} // namespace native
} // namespace at
