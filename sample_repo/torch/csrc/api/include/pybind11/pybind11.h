// The slice of pybind11 that the sample tree's extensions use to expose C++
// functions and classes to Python. Declarations with inline no-op bodies: it
// compiles binding code, it does not bind anything.
#pragma once

namespace pybind11 {

// py::init<Args...>(): binds a constructor taking Args.
template <class... A>
struct init {};

class module_ {
 public:
  explicit module_(const char* name = "") : name_(name) {}

  template <class F>
  module_& def(const char* name, F&& f, const char* doc = "") {
    (void)name;
    (void)f;
    (void)doc;
    return *this;
  }

  module_ def_submodule(const char* name) { return module_(name); }

  const char* name() const { return name_; }

 private:
  const char* name_;
};

template <class T>
class class_ {
 public:
  class_(module_& scope, const char* name) : scope_(&scope), name_(name) {}

  template <class F>
  class_& def(const char* name, F&& f) {
    (void)name;
    (void)f;
    return *this;
  }

  template <class... A>
  class_& def(init<A...> constructor) {
    (void)constructor;
    return *this;
  }

 private:
  module_* scope_;
  const char* name_;
};

} // namespace pybind11

#define PYBIND11_CONCAT_INNER(a, b) a##b
#define PYBIND11_CONCAT(a, b) PYBIND11_CONCAT_INNER(a, b)

// PYBIND11_MODULE(name, m) { m.def(...); }: the body fills module `name`.
#define PYBIND11_MODULE(name, variable) \
  void PYBIND11_CONCAT(pybind11_init_, name)(::pybind11::module_ & variable)
