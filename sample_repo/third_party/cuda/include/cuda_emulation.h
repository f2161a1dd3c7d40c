// CPU emulation of the CUDA device-side language for .cu files compiled by a
// host C++ compiler. The build force-includes this header (-include
// cuda_emulation.h) into .cu files after torch/utils/_cuda_emulation.py has
// rewritten the CUDA-only syntax:
//
//   kernel<<<grid, block, shmem, stream>>>(args)
//       -> ::cuda_emulation::launch(kernel, grid, block, shmem, stream)(args)
//   extern __shared__ T name[];
//       -> T* const name = reinterpret_cast<T*>(::cuda_emulation::dynamic_shared_memory());
//
// Execution model: blocks run one after another on the calling host thread;
// the threads of a block are cooperative fibers that switch only at
// __syncthreads() and the warp-level primitives (__syncwarp, shuffles,
// votes). That serves every kernel that synchronizes through those; a kernel
// that spins on a flag set by another thread or block, or relies on implicit
// warp lockstep without __syncwarp, would not work. The scheduler lives in
// cuda_runtime.cpp.
//
// Tracing: the library is compiled with -finstrument-functions. Everything
// that runs per device thread carries no_instrument_function, and the launcher
// reports one frame per launch, attributed to the kernel function itself.
#pragma once

#if defined(__CUDACC__)
#error "cuda_emulation.h is for host compilers; nvcc provides the real device language"
#endif

#define CUDA_EMULATION 1

// Marks emulation helpers so that they never appear as traced frames.
#define CUDA_EMULATION_INTERNAL __attribute__((no_instrument_function))

// Kernels and device functions run once per emulated thread: keep them out of
// the trace (a launch is traced once, by the launcher).
#define __global__ __attribute__((no_instrument_function))
#define __device__ __attribute__((no_instrument_function))
#define __host__
// One storage per kernel instantiation and host thread: the fibers of a
// block share it, and blocks run one at a time, as on a single SM.
#define __shared__ static thread_local
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
// Not defined: __noinline__ (libstdc++ spells __attribute__((__noinline__)))
// and __restrict__ (a GCC keyword already).
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

#include "cuda_runtime.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

// glibc defines both as no-ops; a tracer linked into the process overrides
// them. Declared here because no system header does.
extern "C" {
void __cyg_profile_func_enter(void* this_fn, void* call_site) CUDA_EMULATION_INTERNAL;
void __cyg_profile_func_exit(void* this_fn, void* call_site) CUDA_EMULATION_INTERNAL;
}

// ---------------------------------------------------------------------------
// Built-in variables. The scheduler rewrites them before resuming a fiber, so
// each emulated thread reads its own index. Constant-initialized inline
// variables, so every translation unit accesses them without a TLS wrapper.
inline thread_local uint3 threadIdx = {0, 0, 0};
inline thread_local uint3 blockIdx = {0, 0, 0};
inline thread_local dim3 blockDim = dim3(1, 1, 1);
inline thread_local dim3 gridDim = dim3(1, 1, 1);
constexpr int warpSize = 32;

namespace cuda_emulation {

constexpr unsigned int kWarpSize = 32;
constexpr unsigned int kMaxThreadsPerBlock = 1024;
constexpr size_t kMaxDynamicSharedBytes = 48 * 1024;

using ThreadFunction = void (*)(const void* frame);

// Implemented in cuda_runtime.cpp.
CUDA_EMULATION_INTERNAL cudaError_t check_launch(dim3 grid, dim3 block, size_t shared_bytes,
                                                 cudaStream_t stream);
CUDA_EMULATION_INTERNAL cudaError_t run_grid(dim3 grid, dim3 block, size_t shared_bytes,
                                             ThreadFunction thread_function,
                                             const void* frame);
CUDA_EMULATION_INTERNAL void record_launch_error(cudaError_t error);
CUDA_EMULATION_INTERNAL void* dynamic_shared_memory();
CUDA_EMULATION_INTERNAL void block_barrier();
CUDA_EMULATION_INTERNAL void warp_barrier();
// Exchanges one 64-bit value per lane of the calling warp. Fills `lanes`
// with every live lane's value and returns the mask of live lanes.
CUDA_EMULATION_INTERNAL unsigned int warp_exchange(uint64_t value, uint64_t lanes[kWarpSize]);
CUDA_EMULATION_INTERNAL unsigned int lane_id();

// --- kernel arguments -------------------------------------------------------
// A minimal tuple: std::tuple/std::apply are instrumented library functions,
// and would otherwise be traced once per emulated thread.
template <std::size_t Index, typename T>
struct ArgSlot {
  template <typename U>
  CUDA_EMULATION_INTERNAL explicit ArgSlot(U&& source) : value(static_cast<U&&>(source)) {}
  T value;
};

template <typename Indices, typename... T>
struct ArgPack;

template <std::size_t... Index, typename... T>
struct ArgPack<std::index_sequence<Index...>, T...> : ArgSlot<Index, T>... {
  // Converts each argument to its parameter type, as a call would.
  template <typename... U>
  CUDA_EMULATION_INTERNAL explicit ArgPack(U&&... source)
      : ArgSlot<Index, T>(static_cast<U&&>(source))... {}
};

template <typename... Params>
struct LaunchFrame {
  using Pack = ArgPack<std::index_sequence_for<Params...>, std::decay_t<Params>...>;

  void (*kernel)(Params...);
  Pack args;

  // Each emulated thread receives its own by-value copy of the arguments.
  template <std::size_t... Index>
  CUDA_EMULATION_INTERNAL void call(std::index_sequence<Index...>) const {
    kernel(static_cast<const ArgSlot<Index, std::decay_t<Params>>&>(args).value...);
  }

  CUDA_EMULATION_INTERNAL static void run_thread(const void* frame) {
    static_cast<const LaunchFrame*>(frame)->call(std::index_sequence_for<Params...>{});
  }
};

// What `kernel<<<grid, block, shmem, stream>>>` evaluates to; the call
// operator takes the kernel arguments and runs the grid to completion.
template <typename... Params>
struct Launcher {
  void (*kernel)(Params...);
  dim3 grid;
  dim3 block;
  size_t shared_bytes;
  cudaStream_t stream;

  // noinline: __builtin_return_address(0) must be the launch site.
  template <typename... Args>
  __attribute__((no_instrument_function, noinline)) void operator()(Args&&... args) const {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "kernel launched with the wrong number of arguments");
    const cudaError_t status = check_launch(grid, block, shared_bytes, stream);
    if (status != cudaSuccess) {
      record_launch_error(status);
      return;
    }
    const LaunchFrame<Params...> frame{kernel,
                                       typename LaunchFrame<Params...>::Pack(
                                           static_cast<Args&&>(args)...)};
    void* const traced_function = reinterpret_cast<void*>(kernel);
    void* const call_site = __builtin_return_address(0);
    __cyg_profile_func_enter(traced_function, call_site);
    const cudaError_t result = run_grid(grid, block, shared_bytes,
                                        &LaunchFrame<Params...>::run_thread, &frame);
    __cyg_profile_func_exit(traced_function, call_site);
    if (result != cudaSuccess) record_launch_error(result);
  }
};

template <typename... Params>
CUDA_EMULATION_INTERNAL inline Launcher<Params...> launch(void (*kernel)(Params...), dim3 grid,
                                                          dim3 block, size_t shared_bytes = 0,
                                                          cudaStream_t stream = nullptr) {
  return Launcher<Params...>{kernel, grid, block, shared_bytes, stream};
}

template <typename T>
CUDA_EMULATION_INTERNAL inline uint64_t to_bits(T value) {
  static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable<T>::value,
                "warp exchanges move at most 64-bit trivially copyable values");
  uint64_t bits = 0;
  __builtin_memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T>
CUDA_EMULATION_INTERNAL inline T from_bits(uint64_t bits) {
  T value;
  __builtin_memcpy(&value, &bits, sizeof(T));
  return value;
}

// Lane `source` of the caller's `width`-wide segment, or the caller's own
// value when `source` lies outside the segment or its lane has exited.
template <typename T>
CUDA_EMULATION_INTERNAL inline T shuffle_from(T var, int source, int width) {
  uint64_t lanes[kWarpSize];
  const unsigned int live = warp_exchange(to_bits(var), lanes);
  const int lane = static_cast<int>(lane_id());
  const int segment = lane - lane % width;
  if (source < segment || source >= segment + width || !((live >> source) & 1u)) return var;
  return from_bits<T>(lanes[source]);
}

// Floating-point atomics work on the bit pattern: there is no fetch_add
// builtin for float / double.
template <typename T>
using FloatBits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
CUDA_EMULATION_INTERNAL inline T atomic_add_floating(T* address, T operand) {
  FloatBits<T>* raw = reinterpret_cast<FloatBits<T>*>(address);
  FloatBits<T> expected = __atomic_load_n(raw, __ATOMIC_RELAXED);
  for (;;) {
    T old;
    __builtin_memcpy(&old, &expected, sizeof(T));
    const T sum = old + operand;
    FloatBits<T> desired;
    __builtin_memcpy(&desired, &sum, sizeof(T));
    if (__atomic_compare_exchange_n(raw, &expected, desired, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED)) {
      return old;
    }
  }
}

}  // namespace cuda_emulation

// ---------------------------------------------------------------------------
// Synchronization.
CUDA_EMULATION_INTERNAL inline void __syncthreads() { ::cuda_emulation::block_barrier(); }
CUDA_EMULATION_INTERNAL inline void __syncwarp(unsigned int mask = 0xffffffffu) {
  (void)mask;  // every live lane of the warp takes part
  ::cuda_emulation::warp_barrier();
}
CUDA_EMULATION_INTERNAL inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
CUDA_EMULATION_INTERNAL inline void __threadfence_block() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

// Warp shuffles and votes. `mask` names the participating lanes in CUDA; the
// emulation requires (like sm_70+ does for correctness) that all live lanes
// of the warp make the call, and ignores it.
template <typename T>
CUDA_EMULATION_INTERNAL inline T __shfl_sync(unsigned int mask, T var, int src_lane,
                                             int width = warpSize) {
  (void)mask;
  const int lane = static_cast<int>(::cuda_emulation::lane_id());
  const int segment = lane - lane % width;
  return ::cuda_emulation::shuffle_from(var, segment + ((src_lane % width) + width) % width, width);
}
template <typename T>
CUDA_EMULATION_INTERNAL inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta,
                                                int width = warpSize) {
  (void)mask;
  const int lane = static_cast<int>(::cuda_emulation::lane_id());
  return ::cuda_emulation::shuffle_from(var, lane - static_cast<int>(delta), width);
}
template <typename T>
CUDA_EMULATION_INTERNAL inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta,
                                                  int width = warpSize) {
  (void)mask;
  const int lane = static_cast<int>(::cuda_emulation::lane_id());
  return ::cuda_emulation::shuffle_from(var, lane + static_cast<int>(delta), width);
}
template <typename T>
CUDA_EMULATION_INTERNAL inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask,
                                                 int width = warpSize) {
  (void)mask;
  const int lane = static_cast<int>(::cuda_emulation::lane_id());
  return ::cuda_emulation::shuffle_from(var, lane ^ lane_mask, width);
}
CUDA_EMULATION_INTERNAL inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
  uint64_t lanes[::cuda_emulation::kWarpSize];
  const unsigned int live = ::cuda_emulation::warp_exchange(predicate != 0, lanes);
  unsigned int ballot = 0;
  for (unsigned int lane = 0; lane < ::cuda_emulation::kWarpSize; ++lane) {
    if (((live >> lane) & 1u) && lanes[lane] != 0) ballot |= 1u << lane;
  }
  return ballot & mask;
}
CUDA_EMULATION_INTERNAL inline int __any_sync(unsigned int mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
CUDA_EMULATION_INTERNAL inline int __all_sync(unsigned int mask, int predicate) {
  uint64_t lanes[::cuda_emulation::kWarpSize];
  const unsigned int live = ::cuda_emulation::warp_exchange(predicate != 0, lanes);
  for (unsigned int lane = 0; lane < ::cuda_emulation::kWarpSize; ++lane) {
    if ((((live & mask) >> lane) & 1u) != 0 && lanes[lane] == 0) return 0;
  }
  return 1;
}

// ---------------------------------------------------------------------------
// Atomics. Fibers of one launch never interleave inside an operation, but
// other host threads may touch the same memory, so these are real atomics.
#define CUDA_EMULATION_INTEGER_ATOMICS(T)                                                 \
  CUDA_EMULATION_INTERNAL inline T atomicAdd(T* address, T val) {                         \
    return __atomic_fetch_add(address, val, __ATOMIC_SEQ_CST);                            \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicSub(T* address, T val) {                         \
    return __atomic_fetch_sub(address, val, __ATOMIC_SEQ_CST);                            \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicExch(T* address, T val) {                        \
    return __atomic_exchange_n(address, val, __ATOMIC_SEQ_CST);                           \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicAnd(T* address, T val) {                         \
    return __atomic_fetch_and(address, val, __ATOMIC_SEQ_CST);                            \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicOr(T* address, T val) {                          \
    return __atomic_fetch_or(address, val, __ATOMIC_SEQ_CST);                             \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicXor(T* address, T val) {                         \
    return __atomic_fetch_xor(address, val, __ATOMIC_SEQ_CST);                            \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicCAS(T* address, T compare, T val) {              \
    __atomic_compare_exchange_n(address, &compare, val, false, __ATOMIC_SEQ_CST,          \
                                __ATOMIC_SEQ_CST);                                        \
    return compare;                                                                        \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicMax(T* address, T val) {                         \
    T old = __atomic_load_n(address, __ATOMIC_SEQ_CST);                                   \
    while (old < val && !__atomic_compare_exchange_n(address, &old, val, false,           \
                                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { \
    }                                                                                      \
    return old;                                                                            \
  }                                                                                        \
  CUDA_EMULATION_INTERNAL inline T atomicMin(T* address, T val) {                         \
    T old = __atomic_load_n(address, __ATOMIC_SEQ_CST);                                   \
    while (val < old && !__atomic_compare_exchange_n(address, &old, val, false,           \
                                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { \
    }                                                                                      \
    return old;                                                                            \
  }

CUDA_EMULATION_INTEGER_ATOMICS(int)
CUDA_EMULATION_INTEGER_ATOMICS(unsigned int)
CUDA_EMULATION_INTEGER_ATOMICS(unsigned long long)
CUDA_EMULATION_INTEGER_ATOMICS(long long)
#undef CUDA_EMULATION_INTEGER_ATOMICS

CUDA_EMULATION_INTERNAL inline float atomicAdd(float* address, float val) {
  return ::cuda_emulation::atomic_add_floating(address, val);
}
CUDA_EMULATION_INTERNAL inline double atomicAdd(double* address, double val) {
  return ::cuda_emulation::atomic_add_floating(address, val);
}
CUDA_EMULATION_INTERNAL inline float atomicExch(float* address, float val) {
  uint32_t bits;
  __builtin_memcpy(&bits, &val, sizeof(bits));
  const uint32_t old_bits = __atomic_exchange_n(reinterpret_cast<uint32_t*>(address), bits,
                                                __ATOMIC_SEQ_CST);
  float old;
  __builtin_memcpy(&old, &old_bits, sizeof(old));
  return old;
}
// Wrap-around increment / decrement with CUDA's exact formulas.
CUDA_EMULATION_INTERNAL inline unsigned int atomicInc(unsigned int* address, unsigned int val) {
  unsigned int old = __atomic_load_n(address, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(address, &old, old >= val ? 0u : old + 1u, false,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
CUDA_EMULATION_INTERNAL inline unsigned int atomicDec(unsigned int* address, unsigned int val) {
  unsigned int old = __atomic_load_n(address, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(address, &old, (old == 0u || old > val) ? val : old - 1u,
                                      false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}

// ---------------------------------------------------------------------------
// Loads and math. CUDA's device library overloads the C math names for
// float; <cmath>'s std:: overloads are instrumented inline functions, so the
// float versions here forward to the (uninstrumented) C library instead.
// They are templates restricted to float so that, if <math.h> has already
// put std:: overloads into the global namespace, the two never clash.
template <typename T>
CUDA_EMULATION_INTERNAL inline T __ldg(const T* address) {
  return *address;
}

#define CUDA_EMULATION_FLOAT_UNARY(name, c_function)                                    \
  template <typename T, std::enable_if_t<std::is_same<T, float>::value, int> = 0>       \
  CUDA_EMULATION_INTERNAL inline float name(T x) {                                      \
    return ::c_function(x);                                                              \
  }
CUDA_EMULATION_FLOAT_UNARY(exp, expf)
CUDA_EMULATION_FLOAT_UNARY(exp2, exp2f)
CUDA_EMULATION_FLOAT_UNARY(expm1, expm1f)
CUDA_EMULATION_FLOAT_UNARY(log, logf)
CUDA_EMULATION_FLOAT_UNARY(log2, log2f)
CUDA_EMULATION_FLOAT_UNARY(log10, log10f)
CUDA_EMULATION_FLOAT_UNARY(log1p, log1pf)
CUDA_EMULATION_FLOAT_UNARY(sqrt, sqrtf)
CUDA_EMULATION_FLOAT_UNARY(cbrt, cbrtf)
CUDA_EMULATION_FLOAT_UNARY(sin, sinf)
CUDA_EMULATION_FLOAT_UNARY(cos, cosf)
CUDA_EMULATION_FLOAT_UNARY(tan, tanf)
CUDA_EMULATION_FLOAT_UNARY(asin, asinf)
CUDA_EMULATION_FLOAT_UNARY(acos, acosf)
CUDA_EMULATION_FLOAT_UNARY(atan, atanf)
CUDA_EMULATION_FLOAT_UNARY(sinh, sinhf)
CUDA_EMULATION_FLOAT_UNARY(cosh, coshf)
CUDA_EMULATION_FLOAT_UNARY(tanh, tanhf)
CUDA_EMULATION_FLOAT_UNARY(erf, erff)
CUDA_EMULATION_FLOAT_UNARY(erfc, erfcf)
CUDA_EMULATION_FLOAT_UNARY(lgamma, lgammaf)
CUDA_EMULATION_FLOAT_UNARY(tgamma, tgammaf)
CUDA_EMULATION_FLOAT_UNARY(fabs, fabsf)
CUDA_EMULATION_FLOAT_UNARY(floor, floorf)
CUDA_EMULATION_FLOAT_UNARY(ceil, ceilf)
CUDA_EMULATION_FLOAT_UNARY(round, roundf)
CUDA_EMULATION_FLOAT_UNARY(trunc, truncf)
#undef CUDA_EMULATION_FLOAT_UNARY

template <typename T, std::enable_if_t<std::is_same<T, float>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline float pow(T x, float y) {
  return ::powf(x, y);
}
template <typename T, std::enable_if_t<std::is_same<T, float>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline float fmod(T x, float y) {
  return ::fmodf(x, y);
}
template <typename T, std::enable_if_t<std::is_same<T, float>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline float atan2(T y, float x) {
  return ::atan2f(y, x);
}

// Classification: the std:: versions are instrumented inline functions.
template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline bool isnan(T x) {
  return __builtin_isnan(x);
}
template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline bool isinf(T x) {
  return __builtin_isinf(x);
}
template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline bool isfinite(T x) {
  return __builtin_isfinite(x);
}
template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline bool signbit(T x) {
  return __builtin_signbit(x);
}

CUDA_EMULATION_INTERNAL inline float rsqrtf(float x) { return 1.0f / ::sqrtf(x); }
CUDA_EMULATION_INTERNAL inline float rsqrt(float x) { return 1.0f / ::sqrtf(x); }
CUDA_EMULATION_INTERNAL inline double rsqrt(double x) { return 1.0 / ::sqrt(x); }

// Fast-math intrinsics: computed at full float precision here.
CUDA_EMULATION_INTERNAL inline float __expf(float x) { return ::expf(x); }
CUDA_EMULATION_INTERNAL inline float __logf(float x) { return ::logf(x); }
CUDA_EMULATION_INTERNAL inline float __log2f(float x) { return ::log2f(x); }
CUDA_EMULATION_INTERNAL inline float __powf(float x, float y) { return ::powf(x, y); }
CUDA_EMULATION_INTERNAL inline float __sinf(float x) { return ::sinf(x); }
CUDA_EMULATION_INTERNAL inline float __cosf(float x) { return ::cosf(x); }
CUDA_EMULATION_INTERNAL inline float __tanf(float x) { return ::tanf(x); }
CUDA_EMULATION_INTERNAL inline float __fdividef(float x, float y) { return x / y; }
CUDA_EMULATION_INTERNAL inline float __frcp_rn(float x) { return 1.0f / x; }
CUDA_EMULATION_INTERNAL inline float __fsqrt_rn(float x) { return ::sqrtf(x); }
CUDA_EMULATION_INTERNAL inline float __saturatef(float x) {
  return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x));
}

// CUDA's min/max accept any mix of arithmetic types and return the usual
// arithmetic conversion of the two (std::min/max would demand equal types).
template <typename A, typename B,
          std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline std::common_type_t<A, B> min(A a, B b) {
  using R = std::common_type_t<A, B>;
  return static_cast<R>(b) < static_cast<R>(a) ? static_cast<R>(b) : static_cast<R>(a);
}
template <typename A, typename B,
          std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int> = 0>
CUDA_EMULATION_INTERNAL inline std::common_type_t<A, B> max(A a, B b) {
  using R = std::common_type_t<A, B>;
  return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a);
}
