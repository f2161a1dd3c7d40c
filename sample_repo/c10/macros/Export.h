#pragma once

// Symbol visibility for the (future) shared library build.
#if defined(_WIN32)
#define C10_EXPORT __declspec(dllexport)
#else
#define C10_EXPORT __attribute__((__visibility__("default")))
#endif

#define C10_API C10_EXPORT
#define TORCH_API C10_EXPORT

#define C10_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
