#pragma once

#include <c10/core/DeviceType.h>
#include <c10/macros/Export.h>
#include <c10/util/Exception.h>

#include <utility>

// A DispatchStub is a global table of per-device function pointers for one
// kernel. Generic code (Activation.cpp, BinaryOps.cpp, ...) declares and calls
// it; device-specific files (cpu/*.cpp, cuda/*.cu) fill in their slot at
// static-initialization time:
//
//   Activation.h        DECLARE_DISPATCH(relu_fn, relu_stub);
//   Activation.cpp      DEFINE_DISPATCH(relu_stub);
//                       relu_stub(self.device().type(), result, self);
//   cpu/Activation.cpp  REGISTER_DISPATCH(relu_stub, &relu_kernel);
//   cuda/Activation.cu  REGISTER_DISPATCH(relu_stub, &relu_kernel_cuda);

namespace at {
namespace native {

template <typename FnPtr>
struct DispatchStub;

template <typename rT, typename... Args>
struct DispatchStub<rT (*)(Args...)> {
  using FnPtr = rT (*)(Args...);

  template <typename... ArgTypes>
  rT operator()(c10::DeviceType device_type, ArgTypes&&... args) const {
    FnPtr fn = choose(device_type);
    return (*fn)(std::forward<ArgTypes>(args)...);
  }

  FnPtr choose(c10::DeviceType device_type) const {
    FnPtr fn = nullptr;
    switch (device_type) {
      case c10::DeviceType::CPU:
        fn = cpu_dispatch_ptr;
        break;
      case c10::DeviceType::CUDA:
        fn = cuda_dispatch_ptr;
        break;
      default:
        break;
    }
    TORCH_CHECK(fn != nullptr, "DispatchStub: no kernel registered for device type ",
                device_type);
    return fn;
  }

  void set(c10::DeviceType device_type, FnPtr fn) {
    if (device_type == c10::DeviceType::CUDA) {
      cuda_dispatch_ptr = fn;
    } else {
      cpu_dispatch_ptr = fn;
    }
  }

  // Constant-initialized (no user constructor), so registration from another
  // translation unit's static initializer can never see it half-built.
  FnPtr cpu_dispatch_ptr = nullptr;
  FnPtr cuda_dispatch_ptr = nullptr;
};

// Static helper object whose constructor fills one slot of a stub.
template <typename Stub>
struct StubRegisterer {
  StubRegisterer(Stub& stub, c10::DeviceType device_type, typename Stub::FnPtr fn) {
    stub.set(device_type, fn);
  }
};

} // namespace native
} // namespace at

#define DECLARE_DISPATCH(fn, name)                                         \
  struct name##_DECLARE_DISPATCH_type : ::at::native::DispatchStub<fn> {}; \
  extern TORCH_API struct name##_DECLARE_DISPATCH_type name

#define DEFINE_DISPATCH(name) struct name##_DECLARE_DISPATCH_type name

#define REGISTER_ARCH_DISPATCH(name, arch, fn)                             \
  static ::at::native::StubRegisterer<name##_DECLARE_DISPATCH_type>        \
      name##_##arch##_registerer(name, ::c10::DeviceType::arch, fn)

#define REGISTER_CPU_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, CPU, fn)
#define REGISTER_CUDA_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, CUDA, fn)

// Which slot REGISTER_DISPATCH fills depends on the compiler seeing the file.
#if defined(__CUDACC__) || defined(CUDA_EMULATION)
#define REGISTER_DISPATCH(name, fn) REGISTER_CUDA_DISPATCH(name, fn)
#else
#define REGISTER_DISPATCH(name, fn) REGISTER_CPU_DISPATCH(name, fn)
#endif
