#include <ATen/core/dispatch/Dispatcher.h>

#include <sstream>

namespace c10 {

namespace impl {

OperatorEntry::OperatorEntry(OperatorName name) : name_(std::move(name)) {}

void OperatorEntry::registerSchema(std::string schema) {
  TORCH_CHECK(schema_.empty() || schema_ == schema, "operator ", name_.str(),
              " was declared twice with different schemas: '", schema_, "' and '", schema, "'");
  schema_ = std::move(schema);
}

void OperatorEntry::registerKernel(DispatchKey key, ErasedFunction fn,
                                   const std::type_info& signature, std::string debug) {
  TORCH_CHECK(key != DispatchKey::Undefined && key != DispatchKey::NumDispatchKeys,
              "cannot register a kernel of ", name_.str(), " for dispatch key ", key);
  AnnotatedKernel& slot = kernels_[static_cast<size_t>(key)];
  TORCH_CHECK(slot.fn == nullptr, "operator ", name_.str(), " already has a kernel for ", key,
              " (", slot.debug, "); cannot register ", debug);
  slot.fn = fn;
  slot.signature = &signature;
  slot.debug = std::move(debug);
  updateDispatchTable();
}

// Backend keys fall back to the alias keys, in PyTorch's order of precedence.
void OperatorEntry::updateDispatchTable() {
  const AnnotatedKernel* explicit_kernel =
      hasKernelForDispatchKey(DispatchKey::CompositeExplicitAutograd)
          ? &kernels_[static_cast<size_t>(DispatchKey::CompositeExplicitAutograd)]
          : nullptr;
  const AnnotatedKernel* implicit_kernel =
      hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd)
          ? &kernels_[static_cast<size_t>(DispatchKey::CompositeImplicitAutograd)]
          : nullptr;
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    const DispatchKey key = static_cast<DispatchKey>(k);
    if (!isBackendDispatchKey(key)) {
      dispatchTable_[k] = nullptr;
      continue;
    }
    if (hasKernelForDispatchKey(key)) {
      dispatchTable_[k] = &kernels_[k];
    } else if (explicit_kernel != nullptr) {
      dispatchTable_[k] = explicit_kernel;
    } else {
      dispatchTable_[k] = implicit_kernel;
    }
  }
}

std::string OperatorEntry::listAllDispatchKeys() const {
  std::ostringstream os;
  os << "[";
  bool first = true;
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    if (kernels_[k].fn == nullptr) continue;
    if (!first) os << ", ";
    os << static_cast<DispatchKey>(k);
    first = false;
  }
  os << "]";
  return os.str();
}

void OperatorEntry::reportError(DispatchKey key) const {
  throw Error(str("Could not run '", name_.str(), "' with arguments from the '", key,
                  "' backend. '", name_.str(), "' is only available for these backends: ",
                  listAllDispatchKeys(), "."),
              __FILE__, __LINE__);
}

void OperatorEntry::reportSignatureError(const AnnotatedKernel& kernel,
                                         const std::type_info& called_with) const {
  throw Error(str("Tried to call the kernel ", kernel.debug, " of ", name_.str(),
                  " with a wrong signature: registered as ", kernel.signature->name(),
                  ", called as ", called_with.name()),
              __FILE__, __LINE__);
}

} // namespace impl

Dispatcher& Dispatcher::singleton() {
  // Function-local, so usable from the static initializers of Register*.cpp;
  // never destroyed, so usable from other static destructors too.
  static Dispatcher* instance = new Dispatcher();
  return *instance;
}

impl::OperatorEntry& Dispatcher::findOrRegisterName_(const OperatorName& name) {
  const std::string key = name.str();
  auto found = operatorLookupTable_.find(key);
  if (found != operatorLookupTable_.end()) return *found->second;
  operators_.emplace_back(name);
  impl::OperatorEntry* entry = &operators_.back();
  operatorLookupTable_.emplace(key, entry);
  return *entry;
}

OperatorHandle Dispatcher::registerDef(const char* name, const char* overload_name,
                                       const char* schema) {
  std::lock_guard<std::mutex> guard(mutex_);
  impl::OperatorEntry& entry = findOrRegisterName_(OperatorName{name, overload_name});
  entry.registerSchema(schema);
  return OperatorHandle(&entry);
}

void Dispatcher::registerKernelErased(const char* name, const char* overload_name,
                                      DispatchKey key, impl::ErasedFunction fn,
                                      const std::type_info& signature, const char* debug) {
  std::lock_guard<std::mutex> guard(mutex_);
  findOrRegisterName_(OperatorName{name, overload_name}).registerKernel(key, fn, signature, debug);
}

std::optional<OperatorHandle> Dispatcher::findSchema(const OperatorName& name) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto found = operatorLookupTable_.find(name.str());
  if (found == operatorLookupTable_.end() || !found->second->hasSchema()) return std::nullopt;
  return OperatorHandle(found->second);
}

OperatorHandle Dispatcher::findSchemaOrThrow(const char* name, const char* overload_name) {
  std::optional<OperatorHandle> handle = findSchema(OperatorName{name, overload_name});
  if (!handle.has_value()) {
    throw Error(str("Could not find schema for ", OperatorName{name, overload_name}.str()), __FILE__,
                __LINE__);
  }
  return *handle;
}

std::vector<OperatorName> Dispatcher::getAllOpNames() {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<OperatorName> names;
  for (const impl::OperatorEntry& entry : operators_) names.push_back(entry.operator_name());
  return names;
}

} // namespace c10
