#pragma once

// The runtime operator table. Every entry of native_functions.yaml has an
// OperatorEntry here, created by the generated RegisterSchema.cpp; the
// generated Register<Key>.cpp files add one kernel per dispatch key. The
// generated definitions of at::_ops::<op>::call look the operator up once and
// then go through Dispatcher::call, which picks the kernel from the devices
// of the arguments:
//
//   static const auto op = c10::Dispatcher::singleton()
//       .findSchemaOrThrow("aten::relu", "").typed<at::Tensor(const at::Tensor&)>();
//   return c10::Dispatcher::singleton().call(op, self);
//
// Kernels are stored unboxed (a plain function pointer of the exact C++
// signature of the operator); the signature is checked when a kernel is
// called through a handle typed with a different one.

#include <ATen/core/TensorBody.h>
#include <c10/core/Device.h>
#include <c10/core/DispatchKey.h>
#include <c10/macros/Export.h>
#include <c10/util/Exception.h>

#include <array>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

namespace c10 {

// "aten::conv2d" + "padding" names the overload aten::conv2d.padding.
struct TORCH_API OperatorName {
  std::string name;
  std::string overload_name;

  std::string str() const { return overload_name.empty() ? name : name + "." + overload_name; }
  bool operator==(const OperatorName& o) const {
    return name == o.name && overload_name == o.overload_name;
  }
};

class Dispatcher;
class OperatorHandle;
template <class FuncType>
class TypedOperatorHandle;

namespace impl {

template <class T>
struct type_identity {
  using type = T;
};

// Any function pointer, stored type-erased; cast back to its real type only
// after the signature check.
using ErasedFunction = void (*)();

struct AnnotatedKernel {
  ErasedFunction fn = nullptr;
  const std::type_info* signature = nullptr; // typeid of the kernel's function type
  std::string debug;                          // the registered wrapper's name
};

// One operator: its schema and its kernels, by dispatch key.
class TORCH_API OperatorEntry final {
 public:
  explicit OperatorEntry(OperatorName name);

  const OperatorName& operator_name() const { return name_; }
  const std::string& schema() const { return schema_; }
  bool hasSchema() const { return !schema_.empty(); }

  void registerSchema(std::string schema);
  void registerKernel(DispatchKey key, ErasedFunction fn, const std::type_info& signature,
                      std::string debug);

  // The kernel run for arguments whose backend is `key`: the backend's own
  // kernel, else the CompositeExplicitAutograd one, else the
  // CompositeImplicitAutograd one. Throws when none exists.
  const AnnotatedKernel& lookup(DispatchKey key) const {
    const AnnotatedKernel* kernel = dispatchTable_[static_cast<size_t>(key)];
    if (C10_UNLIKELY(kernel == nullptr)) reportError(key);
    return *kernel;
  }

  bool hasKernelForDispatchKey(DispatchKey key) const {
    return kernels_[static_cast<size_t>(key)].fn != nullptr;
  }
  // "[CPU, CUDA]": the keys with a kernel of their own.
  std::string listAllDispatchKeys() const;

  [[noreturn]] void reportError(DispatchKey key) const;
  [[noreturn]] void reportSignatureError(const AnnotatedKernel& kernel,
                                         const std::type_info& called_with) const;

 private:
  void updateDispatchTable();

  OperatorName name_;
  std::string schema_;
  std::array<AnnotatedKernel, kNumDispatchKeys> kernels_;
  std::array<const AnnotatedKernel*, kNumDispatchKeys> dispatchTable_{};
};

// Picks the dispatch key of a call from its arguments: the device of the
// first defined tensor argument (plain, optional or in a list); without any,
// the `device` argument of a factory; without that, CPU.
struct DispatchKeyExtractor {
  std::optional<Device> tensor_device;
  std::optional<Device> option_device;

  void operator()(const at::Tensor& t) {
    if (!tensor_device && t.defined()) tensor_device = t.device();
  }
  void operator()(const std::optional<at::Tensor>& t) {
    if (t.has_value()) (*this)(*t);
  }
  void operator()(at::TensorList ts) {
    for (const at::Tensor& t : ts) (*this)(t);
  }
  void operator()(const std::optional<Device>& d) {
    if (!option_device && d.has_value()) option_device = d;
  }
  template <class T>
  void operator()(const T&) {}

  DispatchKey key() const {
    const Device d = tensor_device ? *tensor_device : option_device.value_or(Device(DeviceType::CPU));
    return computeDispatchKeyFromDeviceType(d.type());
  }
};

template <class... Args>
DispatchKey computeDispatchKey(const Args&... args) {
  DispatchKeyExtractor extractor;
  (extractor(args), ...);
  return extractor.key();
}

} // namespace impl

class TORCH_API OperatorHandle {
  friend class Dispatcher;

 public:
  const OperatorName& operator_name() const { return operatorDef_->operator_name(); }
  const std::string& schema() const { return operatorDef_->schema(); }
  bool hasKernelForDispatchKey(DispatchKey key) const {
    return operatorDef_->hasKernelForDispatchKey(key);
  }

  template <class FuncType>
  TypedOperatorHandle<FuncType> typed() const {
    return TypedOperatorHandle<FuncType>(operatorDef_);
  }

 protected:
  explicit OperatorHandle(impl::OperatorEntry* def) : operatorDef_(def) {}
  impl::OperatorEntry* operatorDef_;
};

// An OperatorHandle that knows the C++ signature of its kernels.
template <class FuncType>
class TypedOperatorHandle final : public OperatorHandle {
  friend class OperatorHandle;

 private:
  explicit TypedOperatorHandle(impl::OperatorEntry* def) : OperatorHandle(def) {}
};

class TORCH_API Dispatcher final {
 public:
  static Dispatcher& singleton();

  // Declare an operator (RegisterSchema.cpp): "aten::conv2d", "padding",
  // and the schema text of native_functions.yaml.
  OperatorHandle registerDef(const char* name, const char* overload_name, const char* schema);

  // Add the kernel of one dispatch key (Register<Key>.cpp).
  template <class FuncType>
  void registerKernel(const char* name, const char* overload_name, DispatchKey key, FuncType* fn,
                      const char* debug) {
    registerKernelErased(name, overload_name, key, reinterpret_cast<impl::ErasedFunction>(fn),
                         typeid(FuncType), debug);
  }

  OperatorHandle findSchemaOrThrow(const char* name, const char* overload_name);
  std::optional<OperatorHandle> findSchema(const OperatorName& name);
  std::vector<OperatorName> getAllOpNames();

  // Run the kernel that the arguments' devices select.
  template <class Return, class... Args>
  Return call(const TypedOperatorHandle<Return(Args...)>& op,
              typename impl::type_identity<Args>::type... args) const {
    using FuncType = Return(Args...);
    const DispatchKey key = impl::computeDispatchKey(args...);
    const impl::AnnotatedKernel& kernel = op.operatorDef_->lookup(key);
    if (C10_UNLIKELY(*kernel.signature != typeid(FuncType))) {
      op.operatorDef_->reportSignatureError(kernel, typeid(FuncType));
    }
    return (*reinterpret_cast<FuncType*>(kernel.fn))(std::forward<Args>(args)...);
  }

 private:
  Dispatcher() = default;
  void registerKernelErased(const char* name, const char* overload_name, DispatchKey key,
                            impl::ErasedFunction fn, const std::type_info& signature,
                            const char* debug);
  impl::OperatorEntry& findOrRegisterName_(const OperatorName& name);

  std::mutex mutex_;
  std::list<impl::OperatorEntry> operators_; // stable addresses for the handles
  std::unordered_map<std::string, impl::OperatorEntry*> operatorLookupTable_;
};

} // namespace c10
