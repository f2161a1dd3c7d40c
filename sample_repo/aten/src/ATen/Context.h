#pragma once

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/macros/Export.h>

namespace at {

// Process-wide switches (torch.backends.* flags end up here).
class TORCH_API Context {
 public:
  bool hasCUDA() const { return detail::getCUDAHooks().hasCUDA(); }
  bool hasCuDNN() const { return detail::getCUDAHooks().hasCuDNN(); }

  bool userEnabledCuDNN() const { return enabled_cudnn_; }
  void setUserEnabledCuDNN(bool e) { enabled_cudnn_ = e; }
  bool userEnabledMkldnn() const { return enabled_mkldnn_; }
  void setUserEnabledMkldnn(bool e) { enabled_mkldnn_ = e; }
  bool benchmarkCuDNN() const { return benchmark_cudnn_; }
  void setBenchmarkCuDNN(bool b) { benchmark_cudnn_ = b; }
  bool deterministicCuDNN() const { return deterministic_cudnn_; }
  void setDeterministicCuDNN(bool d) { deterministic_cudnn_ = d; }
  bool allowTF32CuDNN() const { return allow_tf32_cudnn_; }
  void setAllowTF32CuDNN(bool a) { allow_tf32_cudnn_ = a; }

 private:
  bool enabled_cudnn_ = true;
  bool enabled_mkldnn_ = true;
  bool benchmark_cudnn_ = false;
  bool deterministic_cudnn_ = false;
  bool allow_tf32_cudnn_ = true;
};

TORCH_API Context& globalContext();

} // namespace at
