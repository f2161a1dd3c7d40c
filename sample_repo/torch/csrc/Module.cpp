// Process-wide functions of the torch._C module: switches of at::Context
// (torch.backends.cudnn.*), build facts (_has_cudnn, _cudnn_version), the
// grad-mode flag, and the default generators' seed.
//
// Each is a plain extern "C" function; torch/_extension wraps them into the
// Python functions the stubs in torch/_C/__init__.pyi declare. Names follow
// the THPModule_* functions of the real torch/csrc/Module.cpp.

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Config.h>
#include <ATen/Context.h>
#include <ATen/cuda/CUDAConfig.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/utils/python_arg_parser.h>

#include <cstdint>
#include <mutex>

extern "C" {

// ---------------------------------------------------------------- grad mode

TORCH_API int THPModule_isGradEnabled() {
  return c10::GradMode::is_enabled() ? 1 : 0;
}

TORCH_API void THPModule_setGradEnabled(int enabled) {
  c10::GradMode::set_enabled(enabled != 0);
}

// ---------------------------------------------------------------- backend switches

TORCH_API int THPModule_userEnabledCuDNN() {
  return at::globalContext().userEnabledCuDNN() ? 1 : 0;
}

TORCH_API void THPModule_setUserEnabledCuDNN(int enabled) {
  at::globalContext().setUserEnabledCuDNN(enabled != 0);
}

TORCH_API int THPModule_benchmarkCuDNN() {
  return at::globalContext().benchmarkCuDNN() ? 1 : 0;
}

TORCH_API void THPModule_setBenchmarkCuDNN(int enabled) {
  at::globalContext().setBenchmarkCuDNN(enabled != 0);
}

TORCH_API int THPModule_deterministicCuDNN() {
  return at::globalContext().deterministicCuDNN() ? 1 : 0;
}

TORCH_API void THPModule_setDeterministicCuDNN(int enabled) {
  at::globalContext().setDeterministicCuDNN(enabled != 0);
}

TORCH_API int THPModule_allowTF32CuDNN() {
  return at::globalContext().allowTF32CuDNN() ? 1 : 0;
}

TORCH_API void THPModule_setAllowTF32CuDNN(int enabled) {
  at::globalContext().setAllowTF32CuDNN(enabled != 0);
}

TORCH_API int THPModule_userEnabledMkldnn() {
  return at::globalContext().userEnabledMkldnn() ? 1 : 0;
}

TORCH_API void THPModule_setUserEnabledMkldnn(int enabled) {
  at::globalContext().setUserEnabledMkldnn(enabled != 0);
}

// ---------------------------------------------------------------- build facts

TORCH_API int THPModule_hasCuDNN() {
  return AT_CUDNN_ENABLED() ? 1 : 0;
}

TORCH_API int THPModule_hasMKLDNN() {
  return AT_MKLDNN_ENABLED() ? 1 : 0;
}

TORCH_API int THPModule_cudnnVersion(int64_t* version, char* error, int64_t error_len) {
  HANDLE_TH_ERRORS
  *version = static_cast<int64_t>(at::detail::getCUDAHooks().versionCuDNN());
  return THP_OK;
  END_HANDLE_TH_ERRORS(error, error_len)
}

TORCH_API int64_t THPModule_getDeviceCount() {
  return at::detail::getCUDAHooks().getNumGPUs();
}

// ---------------------------------------------------------------- random numbers

// torch.manual_seed: both default generators start over from `seed`.
TORCH_API void THPModule_manualSeed(uint64_t seed) {
  at::CPUGeneratorImpl& cpu = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(cpu.mutex_);
    cpu.set_current_seed(seed);
  }
  at::cuda::detail::getDefaultCUDAGenerator().set_current_seed(seed);
}

TORCH_API uint64_t THPModule_initialSeed() {
  return at::detail::getDefaultCPUGenerator().current_seed();
}

} // extern "C"
