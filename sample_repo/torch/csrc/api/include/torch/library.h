// Operator registration for extensions, reduced to what the sample tree's
// extensions spell: TORCH_LIBRARY blocks that declare schemas,
// TORCH_LIBRARY_IMPL blocks that attach one kernel per dispatch key, the older
// RegisterOperators chain, and C++ autograd Functions.
//
// Declarations and inline no-op bodies only: enough for the sources to compile,
// not a dispatcher.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/DispatchKey.h>

#include <utility>
#include <vector>

namespace torch {

// The handle a TORCH_LIBRARY* block receives. DEF blocks own a namespace and
// declare its schemas; FRAGMENT blocks add schemas to a namespace declared
// elsewhere; IMPL blocks register kernels of one dispatch key.
class Library {
 public:
  enum Kind { DEF, FRAGMENT, IMPL };

  Library(Kind kind, const char* ns, c10::DispatchKey key, const char* file, unsigned line)
      : kind_(kind), ns_(ns), key_(key), file_(file), line_(line) {}

  // "name(Type arg, ...) -> Type": a schema without a kernel.
  Library& def(const char* schema) {
    (void)schema;
    return *this;
  }

  // A schema (or a bare name) together with its catch-all kernel.
  template <class F>
  Library& def(const char* name_or_schema, F&& f) {
    (void)name_or_schema;
    (void)f;
    return *this;
  }

  // The kernel of `name` for this block's dispatch key.
  template <class F>
  Library& impl(const char* name, F&& f) {
    (void)name;
    (void)f;
    return *this;
  }

  Kind kind() const { return kind_; }
  const char* ns() const { return ns_; }
  c10::DispatchKey dispatch_key() const { return key_; }
  const char* file() const { return file_; }
  unsigned line() const { return line_; }

 private:
  Kind kind_;
  const char* ns_;
  c10::DispatchKey key_;
  const char* file_;
  unsigned line_;
};

namespace detail {

// Runs one TORCH_LIBRARY* block during static initialization.
class TorchLibraryInit {
 public:
  using InitFn = void (*)(Library&);

  TorchLibraryInit(Library::Kind kind, InitFn fn, const char* ns, c10::DispatchKey key,
                   const char* file, unsigned line)
      : lib_(kind, ns, key, file, line) {
    fn(lib_);
  }

 private:
  Library lib_;
};

} // namespace detail

// The legacy registration API: torch::RegisterOperators().op("ns::name", &fn).
class RegisterOperators {
 public:
  RegisterOperators() = default;

  template <class F>
  RegisterOperators&& op(const char* schema_or_name, F&& f) && {
    (void)schema_or_name;
    (void)f;
    return std::move(*this);
  }

  template <class F>
  RegisterOperators& op(const char* schema_or_name, F&& f) & {
    (void)schema_or_name;
    (void)f;
    return *this;
  }
};

namespace autograd {

using variable_list = std::vector<at::Tensor>;

// What forward hands to backward.
struct AutogradContext {
  void save_for_backward(variable_list to_save) { saved_ = std::move(to_save); }
  variable_list get_saved_variables() const { return saved_; }
  void mark_non_differentiable(const variable_list& outputs) { (void)outputs; }

 private:
  variable_list saved_;
};

// CRTP base of C++ custom autograd operations: T supplies static forward and
// backward, callers use T::apply(args...).
template <class T>
struct Function {
  template <class... Args>
  static variable_list apply(Args&&... args) {
    return T::forward(nullptr, std::forward<Args>(args)...);
  }
};

} // namespace autograd
} // namespace torch

// Pasting through one more level lets macro arguments expand first.
#define TORCH_LIBRARY_CONCAT_INNER(a, b) a##b
#define TORCH_LIBRARY_CONCAT(a, b) TORCH_LIBRARY_CONCAT_INNER(a, b)

// Kernel wrappers and selective-build markers: identities here.
#define TORCH_FN(func) (&(func))
#define TORCH_SELECTIVE_NAME(n) (n)
#define TORCH_SELECTIVE_SCHEMA(n) (n)

// TORCH_LIBRARY(ns, m) { m.def("op(Tensor x) -> Tensor"); }
#define TORCH_LIBRARY(ns, m)                                                      \
  static void TORCH_LIBRARY_init_##ns(::torch::Library&);                         \
  static const ::torch::detail::TorchLibraryInit TORCH_LIBRARY_static_init_##ns(  \
      ::torch::Library::DEF, &TORCH_LIBRARY_init_##ns, #ns,                       \
      ::c10::DispatchKey::Undefined, __FILE__, __LINE__);                         \
  void TORCH_LIBRARY_init_##ns(::torch::Library& m)

// Like TORCH_LIBRARY, for a namespace whose TORCH_LIBRARY block lives
// elsewhere; `uid` tells several fragments of one file apart.
#define TORCH_LIBRARY_FRAGMENT(ns, m) TORCH_LIBRARY_FRAGMENT_UID(ns, m, __COUNTER__)
#define TORCH_LIBRARY_FRAGMENT_UID(ns, m, uid)                                        \
  static void TORCH_LIBRARY_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid)(      \
      ::torch::Library&);                                                          \
  static const ::torch::detail::TorchLibraryInit TORCH_LIBRARY_CONCAT(             \
      TORCH_LIBRARY_FRAGMENT_static_init_##ns##_, uid)(                            \
      ::torch::Library::FRAGMENT,                                                  \
      &TORCH_LIBRARY_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid), #ns,        \
      ::c10::DispatchKey::Undefined, __FILE__, __LINE__);                          \
  void TORCH_LIBRARY_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid)(::torch::Library& m)

// TORCH_LIBRARY_IMPL(ns, CPU, m) { m.impl("op", TORCH_FN(op_cpu)); }
#define TORCH_LIBRARY_IMPL(ns, k, m)                                                  \
  static void TORCH_LIBRARY_IMPL_init_##ns##_##k(::torch::Library&);                  \
  static const ::torch::detail::TorchLibraryInit TORCH_LIBRARY_IMPL_static_init_##ns##_##k( \
      ::torch::Library::IMPL, &TORCH_LIBRARY_IMPL_init_##ns##_##k, #ns,               \
      ::c10::DispatchKey::k, __FILE__, __LINE__);                                     \
  void TORCH_LIBRARY_IMPL_init_##ns##_##k(::torch::Library& m)
