#pragma once

#include <c10/core/SymInt.h>
#include <c10/util/ArrayRef.h>

namespace c10 {

using SymIntArrayRef = ArrayRef<SymInt>;

// Concrete ints can be viewed as SymInts without copying (same layout).
inline SymIntArrayRef fromIntArrayRefSlow(IntArrayRef ar) {
  return SymIntArrayRef(reinterpret_cast<const SymInt*>(ar.data()), ar.size());
}

// Every SymInt here is concrete, so the reverse view is always valid.
inline IntArrayRef asIntArrayRefSlow(SymIntArrayRef ar) {
  return IntArrayRef(reinterpret_cast<const int64_t*>(ar.data()), ar.size());
}

} // namespace c10

#define C10_AS_INTARRAYREF_SLOW(a) ::c10::asIntArrayRefSlow(a)

namespace at {
using c10::SymInt;
using c10::SymIntArrayRef;
} // namespace at
