#pragma once

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

// Run a lambda with `scalar_t` bound to the C++ type of a ScalarType.
// The sample tree only stores float data, so Float is the one case that
// instantiates the body; anything else reports a clear error.
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                               \
  [&] {                                                                           \
    const ::c10::ScalarType _st = (TYPE);                                         \
    switch (_st) {                                                                \
      case ::c10::ScalarType::Float: {                                            \
        using scalar_t = float;                                                   \
        return __VA_ARGS__();                                                     \
      }                                                                           \
      default:                                                                    \
        ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__,               \
                                      ::c10::str('"', NAME, "\" not implemented " \
                                                 "for '", ::c10::toString(_st),   \
                                                 "'"));                           \
    }                                                                             \
  }()
