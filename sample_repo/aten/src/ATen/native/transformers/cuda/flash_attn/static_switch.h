// Inspired by PyTorch's flash_attn/static_switch.h (after
// https://github.com/NVIDIA/DALI/blob/main/include/dali/core/static_switch.h):
// a run-time flag made a compile-time constant, the code handed in written once per value.
//
// Usage:
//   BOOL_SWITCH(flag, BoolConst, [&] {
//     some_function<BoolConst>(...);
//   });
#pragma once

#define BOOL_SWITCH(COND, CONST_NAME, ...)      \
  [&] {                                         \
    if (COND) {                                 \
      constexpr static bool CONST_NAME = true;  \
      return __VA_ARGS__();                     \
    } else {                                    \
      constexpr static bool CONST_NAME = false; \
      return __VA_ARGS__();                     \
    }                                           \
  }()
