#pragma once

// The C calling convention between the Python layer (torch/_extension, which
// plays the part of the compiled torch._C module through ctypes) and the
// native library.
//
// Operator entry points are generated (torchgen/gen_python_functions.py), one
// per overload of native_functions.yaml:
//
//   extern "C" int THPVariable_<op>[_<overload>](const THPArg* args, int64_t nargs,
//                                               THPResult* results,
//                                               char* error, int64_t error_len);
//
// `args` holds one tagged value per schema argument, in schema order: Python
// has already picked the overload, matched keywords and applied defaults.
// `results` has room for one tagged value per schema return. The return value
// is THP_OK, or an error code with a NUL-terminated message in `error`; no
// C++ exception ever crosses into Python. Tensors travel as handles: an
// at::Tensor allocated with new, owned by the Python object that received it,
// and released with THPTensor_free (torch/csrc/autograd/python_variable.cpp).
//
// The THPUtils_* helpers below unpack THPArgs into the C++ types of the at::
// API and pack results; they are header-only and named THP* like the rest of
// the binding glue.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/macros/Export.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

extern "C" {

// Tags of THPArg.tag / THPResult.tag.
enum THPTag : int64_t {
  THP_NONE = 0,          // None / an undefined tensor / std::nullopt
  THP_TENSOR = 1,        // p: at::Tensor*
  THP_INT = 2,           // i
  THP_FLOAT = 3,         // f
  THP_BOOL = 4,          // i (0 or 1)
  THP_STRING = 5,        // p: const char* (UTF-8), i: length in bytes
  THP_INT_LIST = 6,      // p: const int64_t*, i: length
  THP_TENSOR_LIST = 7,   // p: at::Tensor* const*, i: length
  THP_SCALAR_TYPE = 8,   // i: c10::ScalarType
  THP_LAYOUT = 9,        // i: c10::Layout
  THP_DEVICE = 10,       // i: c10::DeviceType, j: index (-1: none)
  THP_MEMORY_FORMAT = 11 // i: c10::MemoryFormat
};

// Error codes returned by every fallible extern "C" function.
enum THPErrorCode : int {
  THP_OK = 0,
  THP_ERROR_TORCH = 1,     // c10::Error (TORCH_CHECK and friends): RuntimeError in Python
  THP_ERROR_STD = 2,       // any other std::exception: RuntimeError
  THP_ERROR_ARGUMENT = 3,  // the arguments did not have the declared types: TypeError
  THP_ERROR_UNKNOWN = 4    // anything else thrown
};

typedef struct THPArg {
  int64_t tag;
  int64_t i;
  int64_t j;
  double f;
  const void* p;
} THPArg;

typedef struct THPResult {
  int64_t tag;
  int64_t i;
  double f;
  void* p;
} THPResult;

} // extern "C"

// Thrown by the unpackers when a THPArg does not carry the declared type.
struct THPArgumentError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline void THPUtils_setError(char* error, int64_t error_len, const char* message) {
  if (error == nullptr || error_len <= 0) return;
  std::strncpy(error, message, static_cast<size_t>(error_len - 1));
  error[error_len - 1] = '\0';
}

// Every entry point's body sits between these two: the C++ exceptions of the
// call become an error code and a message.
#define HANDLE_TH_ERRORS try {
#define END_HANDLE_TH_ERRORS(ERROR, ERROR_LEN)                       \
  }                                                                   \
  catch (const THPArgumentError& e) {                                 \
    THPUtils_setError(ERROR, ERROR_LEN, e.what());                    \
    return THP_ERROR_ARGUMENT;                                        \
  }                                                                   \
  catch (const c10::Error& e) {                                       \
    THPUtils_setError(ERROR, ERROR_LEN, e.what());                    \
    return THP_ERROR_TORCH;                                           \
  }                                                                   \
  catch (const std::exception& e) {                                   \
    THPUtils_setError(ERROR, ERROR_LEN, e.what());                    \
    return THP_ERROR_STD;                                             \
  }                                                                   \
  catch (...) {                                                       \
    THPUtils_setError(ERROR, ERROR_LEN, "unknown C++ exception");     \
    return THP_ERROR_UNKNOWN;                                         \
  }

inline void THPUtils_checkArgCount(int64_t nargs, int64_t expected, const char* op) {
  if (nargs != expected) {
    throw THPArgumentError(std::string(op) + "() expects " + std::to_string(expected) +
                           " arguments from the binding layer, got " + std::to_string(nargs));
  }
}

[[noreturn]] inline void THPUtils_badTag(const THPArg& arg, const char* expected) {
  throw THPArgumentError(std::string("expected ") + expected + " but got a value with tag " +
                         std::to_string(arg.tag));
}

// ---------------------------------------------------------------- tensors

inline at::Tensor& THPUtils_unpackTensorRef(const THPArg& arg) {
  if (arg.tag != THP_TENSOR || arg.p == nullptr) THPUtils_badTag(arg, "a Tensor");
  return *static_cast<at::Tensor*>(const_cast<void*>(arg.p));
}

inline const at::Tensor& THPUtils_unpackTensor(const THPArg& arg) {
  return THPUtils_unpackTensorRef(arg);
}

inline std::optional<at::Tensor> THPUtils_unpackOptionalTensor(const THPArg& arg) {
  if (arg.tag == THP_NONE) return std::nullopt;
  return THPUtils_unpackTensor(arg);
}

inline std::vector<at::Tensor> THPUtils_unpackTensorList(const THPArg& arg) {
  if (arg.tag != THP_TENSOR_LIST) THPUtils_badTag(arg, "a list of Tensors");
  auto handles = static_cast<at::Tensor* const*>(arg.p);
  std::vector<at::Tensor> tensors;
  tensors.reserve(static_cast<size_t>(arg.i));
  for (int64_t k = 0; k < arg.i; ++k) tensors.push_back(*handles[k]);
  return tensors;
}

// ---------------------------------------------------------------- numbers

inline int64_t THPUtils_unpackLong(const THPArg& arg) {
  if (arg.tag != THP_INT && arg.tag != THP_BOOL) THPUtils_badTag(arg, "an int");
  return arg.i;
}

inline double THPUtils_unpackDouble(const THPArg& arg) {
  if (arg.tag == THP_FLOAT) return arg.f;
  if (arg.tag == THP_INT || arg.tag == THP_BOOL) return static_cast<double>(arg.i);
  THPUtils_badTag(arg, "a float");
}

inline bool THPUtils_unpackBool(const THPArg& arg) {
  if (arg.tag != THP_BOOL) THPUtils_badTag(arg, "a bool");
  return arg.i != 0;
}

inline at::Scalar THPUtils_unpackScalar(const THPArg& arg) {
  switch (arg.tag) {
    case THP_INT:
      return at::Scalar(arg.i);
    case THP_BOOL:
      return at::Scalar(arg.i != 0);
    case THP_FLOAT:
      return at::Scalar(arg.f);
    default:
      THPUtils_badTag(arg, "a number");
  }
}

inline std::vector<int64_t> THPUtils_unpackIntList(const THPArg& arg) {
  if (arg.tag != THP_INT_LIST) THPUtils_badTag(arg, "a list of ints");
  auto values = static_cast<const int64_t*>(arg.p);
  return std::vector<int64_t>(values, values + arg.i);
}

inline std::string_view THPUtils_unpackStringView(const THPArg& arg) {
  if (arg.tag != THP_STRING) THPUtils_badTag(arg, "a str");
  return std::string_view(static_cast<const char*>(arg.p), static_cast<size_t>(arg.i));
}

// ---------------------------------------------------------------- enums and devices

inline c10::ScalarType THPUtils_unpackScalarType(const THPArg& arg) {
  if (arg.tag != THP_SCALAR_TYPE) THPUtils_badTag(arg, "a dtype");
  return static_cast<c10::ScalarType>(arg.i);
}

inline c10::Layout THPUtils_unpackLayout(const THPArg& arg) {
  if (arg.tag != THP_LAYOUT) THPUtils_badTag(arg, "a layout");
  return static_cast<c10::Layout>(arg.i);
}

inline c10::Device THPUtils_unpackDevice(const THPArg& arg) {
  if (arg.tag != THP_DEVICE) THPUtils_badTag(arg, "a device");
  return c10::Device(static_cast<c10::DeviceType>(arg.i), static_cast<c10::DeviceIndex>(arg.j));
}

inline c10::MemoryFormat THPUtils_unpackMemoryFormat(const THPArg& arg) {
  if (arg.tag != THP_MEMORY_FORMAT) THPUtils_badTag(arg, "a memory format");
  return static_cast<c10::MemoryFormat>(arg.i);
}

#define THP_OPTIONAL_UNPACKER(NAME, TYPE)                                 \
  inline std::optional<TYPE> THPUtils_unpackOptional##NAME(const THPArg& arg) { \
    if (arg.tag == THP_NONE) return std::nullopt;                         \
    return THPUtils_unpack##NAME(arg);                                    \
  }

THP_OPTIONAL_UNPACKER(Long, int64_t)
THP_OPTIONAL_UNPACKER(Double, double)
THP_OPTIONAL_UNPACKER(Bool, bool)
THP_OPTIONAL_UNPACKER(ScalarType, c10::ScalarType)
THP_OPTIONAL_UNPACKER(Layout, c10::Layout)
THP_OPTIONAL_UNPACKER(Device, c10::Device)
THP_OPTIONAL_UNPACKER(MemoryFormat, c10::MemoryFormat)

#undef THP_OPTIONAL_UNPACKER

// ---------------------------------------------------------------- results

// A new handle the Python side takes ownership of; undefined tensors are None.
inline void THPUtils_wrap(THPResult* result, const at::Tensor& tensor) {
  if (!tensor.defined()) {
    result->tag = THP_NONE;
    result->p = nullptr;
    return;
  }
  result->tag = THP_TENSOR;
  result->p = new at::Tensor(tensor);
}

inline void THPUtils_wrap(THPResult* result, bool value) {
  result->tag = THP_BOOL;
  result->i = value ? 1 : 0;
}

inline void THPUtils_wrap(THPResult* result, int64_t value) {
  result->tag = THP_INT;
  result->i = value;
}

inline void THPUtils_wrap(THPResult* result, double value) {
  result->tag = THP_FLOAT;
  result->f = value;
}

template <class T>
void THPUtils_wrapResults(THPResult* results, const T& value) {
  THPUtils_wrap(results, value);
}

template <class... Ts, size_t... I>
void THPUtils_wrapTuple(THPResult* results, const std::tuple<Ts...>& values,
                        std::index_sequence<I...>) {
  (THPUtils_wrap(results + I, std::get<I>(values)), ...);
}

template <class... Ts>
void THPUtils_wrapResults(THPResult* results, const std::tuple<Ts...>& values) {
  THPUtils_wrapTuple(results, values, std::index_sequence_for<Ts...>{});
}
