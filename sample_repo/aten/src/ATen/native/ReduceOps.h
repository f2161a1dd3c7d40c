#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/native/DispatchStub.h>

namespace at {
namespace native {

// iter.output() (one element) = the reduction of all of iter.input().
using reduce_fn = void (*)(TensorIteratorBase& iter);

DECLARE_DISPATCH(reduce_fn, sum_stub);

} // namespace native
} // namespace at
