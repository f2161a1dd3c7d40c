// CPU reference implementation of the CUDA runtime API declared in
// cuda_runtime.h, plus the kernel scheduler behind cuda_emulation.h.
//
// "Device" memory is host memory, so every copy is a memcpy and every stream
// operation has finished by the time it returns. What is kept faithful is
// the contract a caller can observe: alignment, argument validation, the
// per-thread sticky last error, and kernels that really run.
//
// The library is built with -finstrument-functions and only the public entry
// points may show up as traced frames. Hence this file is written without
// C++ library templates (std::vector, std::mutex, ... are instrumented
// inline code): helpers are CUDA_EMULATION_INTERNAL and storage comes from
// malloc / mmap, guarded by pthread mutexes.
#include "cuda_emulation.h"
#include "cuda_runtime.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__) || defined(CUDA_EMULATION_FORCE_UCONTEXT)
#include <ucontext.h>
#define CUDA_EMULATION_USE_UCONTEXT 1
#endif

namespace {

// ---------------------------------------------------------------------------
// Last error: per host thread, as in CUDA.
thread_local cudaError_t tls_last_error = cudaSuccess;

CUDA_EMULATION_INTERNAL cudaError_t fail(cudaError_t error) {
  tls_last_error = error;
  return error;
}

// ---------------------------------------------------------------------------
// A sorted set of [base, base + size) ranges: device allocations and streams.
struct RangeSet {
  pthread_mutex_t mutex;
  uintptr_t* bases;
  size_t* sizes;
  size_t count;
  size_t capacity;
};

RangeSet g_allocations = {PTHREAD_MUTEX_INITIALIZER, nullptr, nullptr, 0, 0};
RangeSet g_streams = {PTHREAD_MUTEX_INITIALIZER, nullptr, nullptr, 0, 0};

// First index whose base is greater than `key`. Caller holds the mutex.
CUDA_EMULATION_INTERNAL size_t upper_bound_of(const RangeSet& set, uintptr_t key) {
  size_t lo = 0;
  size_t hi = set.count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (set.bases[mid] <= key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

CUDA_EMULATION_INTERNAL bool range_insert(RangeSet& set, uintptr_t base, size_t size) {
  pthread_mutex_lock(&set.mutex);
  if (set.count == set.capacity) {
    const size_t capacity = set.capacity == 0 ? 64 : set.capacity * 2;
    uintptr_t* bases = static_cast<uintptr_t*>(realloc(set.bases, capacity * sizeof(uintptr_t)));
    if (bases != nullptr) set.bases = bases;
    size_t* sizes = static_cast<size_t*>(realloc(set.sizes, capacity * sizeof(size_t)));
    if (sizes != nullptr) set.sizes = sizes;
    if (bases == nullptr || sizes == nullptr) {
      pthread_mutex_unlock(&set.mutex);
      return false;
    }
    set.capacity = capacity;
  }
  const size_t at = upper_bound_of(set, base);
  memmove(set.bases + at + 1, set.bases + at, (set.count - at) * sizeof(uintptr_t));
  memmove(set.sizes + at + 1, set.sizes + at, (set.count - at) * sizeof(size_t));
  set.bases[at] = base;
  set.sizes[at] = size;
  ++set.count;
  pthread_mutex_unlock(&set.mutex);
  return true;
}

// Removes the range that starts exactly at `base`; false if there is none.
CUDA_EMULATION_INTERNAL bool range_erase(RangeSet& set, uintptr_t base) {
  pthread_mutex_lock(&set.mutex);
  const size_t after = upper_bound_of(set, base);
  const bool found = after > 0 && set.bases[after - 1] == base;
  if (found) {
    const size_t at = after - 1;
    memmove(set.bases + at, set.bases + at + 1, (set.count - at - 1) * sizeof(uintptr_t));
    memmove(set.sizes + at, set.sizes + at + 1, (set.count - at - 1) * sizeof(size_t));
    --set.count;
  }
  pthread_mutex_unlock(&set.mutex);
  return found;
}

// True when [address, address + bytes) lies inside one registered range.
CUDA_EMULATION_INTERNAL bool range_covers(RangeSet& set, const void* address, size_t bytes) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(address);
  pthread_mutex_lock(&set.mutex);
  const size_t after = upper_bound_of(set, start);
  bool covered = false;
  if (after > 0) {
    const uintptr_t base = set.bases[after - 1];
    const size_t size = set.sizes[after - 1];
    covered = start - base < size && bytes <= size - (start - base);
  }
  pthread_mutex_unlock(&set.mutex);
  return covered;
}

CUDA_EMULATION_INTERNAL bool is_device_range(const void* address, size_t bytes) {
  return range_covers(g_allocations, address, bytes);
}

// Streams are opaque heap objects; the legacy default stream is nullptr.
struct StreamObject {
  int device;
};

CUDA_EMULATION_INTERNAL bool is_valid_stream(cudaStream_t stream) {
  return stream == nullptr || range_covers(g_streams, stream, 1);
}

// ---------------------------------------------------------------------------
// The one emulated device.
constexpr int kDeviceCount = 1;
constexpr size_t kDeviceAlignment = 256;  // cudaMalloc's documented minimum
thread_local int tls_current_device = 0;

CUDA_EMULATION_INTERNAL size_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return size_t(1) << 32;
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

CUDA_EMULATION_INTERNAL void copy_text(char* destination, size_t capacity, const char* text) {
  size_t i = 0;
  for (; i + 1 < capacity && text[i] != '\0'; ++i) destination[i] = text[i];
  destination[i] = '\0';
}

CUDA_EMULATION_INTERNAL bool is_valid_memcpy_kind(cudaMemcpyKind kind) {
  return kind == cudaMemcpyHostToHost || kind == cudaMemcpyHostToDevice ||
         kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
         kind == cudaMemcpyDefault;
}

// The sides a copy of this kind declares to be device memory must really be
// device allocations; cudaMemcpyDefault infers the sides, so anything goes.
CUDA_EMULATION_INTERNAL cudaError_t check_copy(void* dst, const void* src, size_t count,
                                               cudaMemcpyKind kind) {
  if (!is_valid_memcpy_kind(kind)) return cudaErrorInvalidMemcpyDirection;
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  const bool dst_on_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_on_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_on_device && !is_device_range(dst, count)) return cudaErrorInvalidValue;
  if (src_on_device && !is_device_range(src, count)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

}  // namespace

// ===========================================================================
// Kernel scheduler.
//
// The threads of a block are started in thread order by "workers": a worker
// is a fiber on a pooled stack that calls the kernel for one thread after
// another. A thread that returns without waiting costs one function call.
// A thread that waits at a barrier keeps the worker's stack, frozen in the
// middle of the kernel, and the scheduler starts a new worker for the
// remaining threads. Once every thread has started, whenever nobody can run,
// the scheduler opens the barrier whose participants have all arrived (a
// warp's live lanes, or the block's live threads) and resumes those threads
// in thread order. A resumed thread that returns finds nothing left to
// start, so its worker ends and the stack goes back to the pool.
namespace cuda_emulation {
namespace {

constexpr size_t kFiberStackBytes = 128 * 1024;
constexpr size_t kGuardBytes = 4096;  // PROT_NONE page below each stack

enum FiberState : unsigned char {
  kRunnable,
  kAtBlockBarrier,
  kAtWarpBarrier,
  kFinished,
};

// One emulated thread of the running block.
struct Fiber {
  void* saved_sp;  // while waiting at a barrier (assembly switch)
  uint3 index;
  FiberState state;
};

struct HostThreadScheduler {
  // Buffers reused from launch to launch.
  Fiber* fibers;
  unsigned fiber_capacity;
  void** free_stacks;
  unsigned free_stack_count;
  unsigned free_stack_capacity;
  uint64_t* warp_slots;  // kWarpSize per warp, for shuffles and votes
  unsigned warp_slot_capacity;
  unsigned* warp_waiting;  // lanes of each warp waiting at a warp barrier
  unsigned warp_waiting_capacity;
  unsigned* warp_live;  // lanes of each warp that have not returned
  unsigned warp_live_capacity;
  unsigned char* shared_memory;  // dynamic shared memory of the running block
  size_t shared_capacity;
#if defined(CUDA_EMULATION_USE_UCONTEXT)
  ucontext_t* contexts;  // the context of each waiting thread
  unsigned context_capacity;
  ucontext_t worker_start_context;
  ucontext_t scheduler_context;
#endif

  // The launch in progress.
  bool active;
  bool failed;
  ThreadFunction thread_function;
  const void* frame;
  unsigned thread_count;
  unsigned next_unstarted;
  uint3 next_index;  // threadIdx of thread `next_unstarted`
  unsigned current;
  unsigned live;
  void* scheduler_sp;
  void* new_worker_stack;    // handed to a worker as it starts
  void* ended_worker_stack;  // handed back by a worker as it ends
};

thread_local HostThreadScheduler* tls_scheduler = nullptr;
pthread_key_t g_scheduler_key;
pthread_once_t g_scheduler_key_once = PTHREAD_ONCE_INIT;

CUDA_EMULATION_INTERNAL void free_scheduler(void* pointer) {
  HostThreadScheduler* scheduler = static_cast<HostThreadScheduler*>(pointer);
  for (unsigned i = 0; i < scheduler->free_stack_count; ++i) {
    munmap(scheduler->free_stacks[i], kFiberStackBytes + kGuardBytes);
  }
  free(scheduler->free_stacks);
  free(scheduler->fibers);
  free(scheduler->warp_slots);
  free(scheduler->warp_waiting);
  free(scheduler->warp_live);
  free(scheduler->shared_memory);
#if defined(CUDA_EMULATION_USE_UCONTEXT)
  free(scheduler->contexts);
#endif
  free(scheduler);
}

CUDA_EMULATION_INTERNAL void create_scheduler_key() {
  pthread_key_create(&g_scheduler_key, &free_scheduler);
}

// The scheduler of the calling host thread, created on first use and freed
// (with its stacks) when the thread exits.
CUDA_EMULATION_INTERNAL HostThreadScheduler* scheduler_for_this_thread() {
  if (tls_scheduler == nullptr) {
    pthread_once(&g_scheduler_key_once, &create_scheduler_key);
    tls_scheduler = static_cast<HostThreadScheduler*>(calloc(1, sizeof(HostThreadScheduler)));
    if (tls_scheduler != nullptr) pthread_setspecific(g_scheduler_key, tls_scheduler);
  }
  return tls_scheduler;
}

// Grows an array of T to at least `wanted` elements; false when out of memory.
template <typename T>
CUDA_EMULATION_INTERNAL bool reserve(T*& array, unsigned& capacity, unsigned wanted) {
  if (capacity >= wanted) return true;
  T* grown = static_cast<T*>(realloc(array, sizeof(T) * wanted));
  if (grown == nullptr) return false;
  array = grown;
  capacity = wanted;
  return true;
}

CUDA_EMULATION_INTERNAL bool reserve_block(HostThreadScheduler& s, unsigned threads) {
  const unsigned warps = (threads + kWarpSize - 1) / kWarpSize;
  return reserve(s.fibers, s.fiber_capacity, threads) &&
#if defined(CUDA_EMULATION_USE_UCONTEXT)
         reserve(s.contexts, s.context_capacity, threads) &&
#endif
         reserve(s.warp_slots, s.warp_slot_capacity, warps * kWarpSize) &&
         reserve(s.warp_waiting, s.warp_waiting_capacity, warps) &&
         reserve(s.warp_live, s.warp_live_capacity, warps);
}

CUDA_EMULATION_INTERNAL void* acquire_stack(HostThreadScheduler& s) {
  if (s.free_stack_count > 0) return s.free_stacks[--s.free_stack_count];
  void* base = mmap(nullptr, kFiberStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  // A stack overflow faults on the guard page instead of corrupting a neighbor.
  mprotect(base, kGuardBytes, PROT_NONE);
  return base;
}

CUDA_EMULATION_INTERNAL void release_stack(HostThreadScheduler& s, void* base) {
  if (!reserve(s.free_stacks, s.free_stack_capacity, s.free_stack_count + 1)) {
    munmap(base, kFiberStackBytes + kGuardBytes);
    return;
  }
  s.free_stacks[s.free_stack_count++] = base;
}

}  // namespace
}  // namespace cuda_emulation

#if !defined(CUDA_EMULATION_USE_UCONTEXT)
// Saves the callee-saved registers of the System V x86-64 ABI on the current
// stack, stores the stack pointer to *save_sp, switches to load_sp and pops
// the registers saved there. The FPU control state is shared by all fibers of
// the host thread, as it would be for code run without fibers.
extern "C" void cuda_emulation_switch_stack(void** save_sp, void* load_sp)
    __attribute__((visibility("hidden")));
asm(R"(
    .text
    .p2align 4
    .globl cuda_emulation_switch_stack
    .hidden cuda_emulation_switch_stack
    .type cuda_emulation_switch_stack, @function
cuda_emulation_switch_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size cuda_emulation_switch_stack, .-cuda_emulation_switch_stack
)");
#endif

namespace cuda_emulation {
namespace {

// Parks the current thread at a barrier and returns to the scheduler; comes
// back when the scheduler resumes the thread.
CUDA_EMULATION_INTERNAL void wait_for_release(HostThreadScheduler& s) {
#if defined(CUDA_EMULATION_USE_UCONTEXT)
  swapcontext(&s.contexts[s.current], &s.scheduler_context);
#else
  cuda_emulation_switch_stack(&s.fibers[s.current].saved_sp, s.scheduler_sp);
#endif
}

CUDA_EMULATION_INTERNAL void finish_thread(HostThreadScheduler& s, unsigned thread) {
  s.fibers[thread].state = kFinished;
  --s.live;
  --s.warp_live[thread / kWarpSize];
}

// Body of every worker fiber; never returns.
[[noreturn]] CUDA_EMULATION_INTERNAL void worker_main() {
  HostThreadScheduler& s = *tls_scheduler;
  void* const own_stack = s.new_worker_stack;
  while (s.next_unstarted < s.thread_count) {
    const unsigned thread = s.next_unstarted++;
    Fiber& fiber = s.fibers[thread];
    fiber.index = s.next_index;
    fiber.state = kRunnable;
    // threadIdx of the next thread, without a division per thread.
    if (++s.next_index.x == blockDim.x) {
      s.next_index.x = 0;
      if (++s.next_index.y == blockDim.y) {
        s.next_index.y = 0;
        ++s.next_index.z;
      }
    }
    s.current = thread;
    threadIdx = fiber.index;
    try {
      s.thread_function(s.frame);
    } catch (...) {
      // Device code cannot throw; report it like a faulting kernel.
      s.failed = true;
    }
    finish_thread(s, s.current);
  }
  s.ended_worker_stack = own_stack;
#if defined(CUDA_EMULATION_USE_UCONTEXT)
  setcontext(&s.scheduler_context);
#else
  void* abandoned_sp = nullptr;
  cuda_emulation_switch_stack(&abandoned_sp, s.scheduler_sp);
#endif
  __builtin_unreachable();  // an ended worker is never resumed
}

CUDA_EMULATION_INTERNAL void collect_ended_worker(HostThreadScheduler& s) {
  if (s.ended_worker_stack != nullptr) {
    release_stack(s, s.ended_worker_stack);
    s.ended_worker_stack = nullptr;
  }
}

// Runs a new worker until it ends or its current thread waits.
CUDA_EMULATION_INTERNAL bool start_worker(HostThreadScheduler& s) {
  void* const stack = acquire_stack(s);
  if (stack == nullptr) return false;
  s.new_worker_stack = stack;
  char* const stack_low = static_cast<char*>(stack) + kGuardBytes;
#if defined(CUDA_EMULATION_USE_UCONTEXT)
  getcontext(&s.worker_start_context);
  s.worker_start_context.uc_stack.ss_sp = stack_low;
  s.worker_start_context.uc_stack.ss_size = kFiberStackBytes;
  s.worker_start_context.uc_link = nullptr;
  makecontext(&s.worker_start_context, &worker_main, 0);
  swapcontext(&s.scheduler_context, &s.worker_start_context);
#else
  // The frame cuda_emulation_switch_stack pops: six zeroed registers, then
  // worker_main as the return address, then a dummy return address for
  // worker_main so that it starts with the ABI's stack alignment.
  void** top = reinterpret_cast<void**>(stack_low + kFiberStackBytes);
  *--top = nullptr;
  *--top = reinterpret_cast<void*>(&worker_main);
  for (int i = 0; i < 6; ++i) *--top = nullptr;
  cuda_emulation_switch_stack(&s.scheduler_sp, top);
#endif
  collect_ended_worker(s);
  return true;
}

CUDA_EMULATION_INTERNAL void resume(HostThreadScheduler& s, unsigned thread) {
  s.current = thread;
  threadIdx = s.fibers[thread].index;
#if defined(CUDA_EMULATION_USE_UCONTEXT)
  swapcontext(&s.scheduler_context, &s.contexts[thread]);
#else
  cuda_emulation_switch_stack(&s.scheduler_sp, s.fibers[thread].saved_sp);
#endif
  collect_ended_worker(s);
}

// Called when no thread can run: lets waiting threads go. Warps whose live
// lanes all wait at a warp barrier go first; otherwise the block barrier
// opens, since every live thread then waits at it. (A mix of both is a
// barrier reached divergently, undefined in CUDA: releasing everyone keeps
// the launch terminating.)
CUDA_EMULATION_INTERNAL void release_barriers(HostThreadScheduler& s) {
  const unsigned warps = (s.thread_count + kWarpSize - 1) / kWarpSize;
  bool released = false;
  for (unsigned warp = 0; warp < warps; ++warp) {
    if (s.warp_waiting[warp] == 0 || s.warp_waiting[warp] != s.warp_live[warp]) continue;
    const unsigned end = (warp + 1) * kWarpSize < s.thread_count ? (warp + 1) * kWarpSize
                                                                  : s.thread_count;
    for (unsigned t = warp * kWarpSize; t < end; ++t) {
      if (s.fibers[t].state == kAtWarpBarrier) s.fibers[t].state = kRunnable;
    }
    s.warp_waiting[warp] = 0;
    released = true;
  }
  if (released) return;
  for (unsigned t = 0; t < s.thread_count; ++t) {
    if (s.fibers[t].state != kFinished) s.fibers[t].state = kRunnable;
  }
  for (unsigned warp = 0; warp < warps; ++warp) s.warp_waiting[warp] = 0;
}

CUDA_EMULATION_INTERNAL bool run_block(HostThreadScheduler& s) {
  const unsigned threads = s.thread_count;
  const unsigned warps = (threads + kWarpSize - 1) / kWarpSize;
  for (unsigned warp = 0; warp < warps; ++warp) {
    const unsigned lanes = threads - warp * kWarpSize;
    s.warp_waiting[warp] = 0;
    s.warp_live[warp] = lanes < kWarpSize ? lanes : kWarpSize;
  }
  s.live = threads;
  s.next_unstarted = 0;
  s.next_index = uint3{0, 0, 0};
  while (s.next_unstarted < threads) {
    if (!start_worker(s)) return false;
  }
  while (s.live > 0) {
    release_barriers(s);
    for (unsigned t = 0; t < threads; ++t) {
      if (s.fibers[t].state == kRunnable) resume(s, t);
    }
  }
  return true;
}

}  // namespace

cudaError_t check_launch(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream) {
  const unsigned long long threads =
      static_cast<unsigned long long>(block.x) * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 ||
      block.z > 64 || threads > kMaxThreadsPerBlock) {
    return cudaErrorInvalidConfiguration;
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535 ||
      grid.z > 65535) {
    return cudaErrorInvalidConfiguration;
  }
  if (shared_bytes > kMaxDynamicSharedBytes) return cudaErrorLaunchOutOfResources;
  if (!is_valid_stream(stream)) return cudaErrorInvalidResourceHandle;
  HostThreadScheduler* s = scheduler_for_this_thread();
  if (s == nullptr) return cudaErrorMemoryAllocation;
  // A launch from inside a kernel would need dynamic parallelism.
  if (s->active) return cudaErrorNotSupported;
  return cudaSuccess;
}

cudaError_t run_grid(dim3 grid, dim3 block, size_t shared_bytes, ThreadFunction thread_function,
                     const void* frame) {
  HostThreadScheduler& s = *scheduler_for_this_thread();
  const unsigned threads = block.x * block.y * block.z;
  if (!reserve_block(s, threads)) return cudaErrorMemoryAllocation;
  // CUDA guarantees at least 16-byte alignment for dynamic shared memory.
  const size_t wanted = ((shared_bytes > 0 ? shared_bytes : 1) + 63) / 64 * 64;
  if (s.shared_capacity < wanted) {
    void* memory = aligned_alloc(64, wanted);
    if (memory == nullptr) return cudaErrorMemoryAllocation;
    free(s.shared_memory);
    s.shared_memory = static_cast<unsigned char*>(memory);
    s.shared_capacity = wanted;
  }

  s.active = true;
  s.failed = false;
  s.thread_function = thread_function;
  s.frame = frame;
  s.thread_count = threads;
  gridDim = grid;
  blockDim = block;
  bool ok = true;
  for (unsigned z = 0; ok && z < grid.z; ++z) {
    for (unsigned y = 0; ok && y < grid.y; ++y) {
      for (unsigned x = 0; ok && x < grid.x; ++x) {
        blockIdx = uint3{x, y, z};
        ok = run_block(s) && !s.failed;
      }
    }
  }
  s.active = false;
  threadIdx = uint3{0, 0, 0};
  blockIdx = uint3{0, 0, 0};
  if (!ok) return s.failed ? cudaErrorLaunchFailure : cudaErrorMemoryAllocation;
  return cudaSuccess;
}

void record_launch_error(cudaError_t error) { fail(error); }

void* dynamic_shared_memory() {
  HostThreadScheduler* s = tls_scheduler;
  return s != nullptr && s->active ? s->shared_memory : nullptr;
}

void block_barrier() {
  HostThreadScheduler* s = tls_scheduler;
  if (s == nullptr || !s->active) return;  // host code: nothing to wait for
  s->fibers[s->current].state = kAtBlockBarrier;
  wait_for_release(*s);
}

void warp_barrier() {
  HostThreadScheduler* s = tls_scheduler;
  if (s == nullptr || !s->active) return;
  s->fibers[s->current].state = kAtWarpBarrier;
  ++s->warp_waiting[s->current / kWarpSize];
  wait_for_release(*s);
}

unsigned int warp_exchange(uint64_t value, uint64_t lanes[kWarpSize]) {
  HostThreadScheduler* s = tls_scheduler;
  if (s == nullptr || !s->active) {  // host code is a warp of one lane
    lanes[0] = value;
    return 1u;
  }
  const unsigned warp = s->current / kWarpSize;
  uint64_t* slots = s->warp_slots + warp * kWarpSize;
  slots[s->current % kWarpSize] = value;
  warp_barrier();
  unsigned int live = 0;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned thread = warp * kWarpSize + lane;
    if (thread < s->thread_count && s->fibers[thread].state != kFinished) {
      live |= 1u << lane;
      lanes[lane] = slots[lane];
    }
  }
  // Nobody may overwrite a slot before every lane has read it.
  warp_barrier();
  return live;
}

unsigned int lane_id() {
  HostThreadScheduler* s = tls_scheduler;
  return s != nullptr && s->active ? s->current % kWarpSize : 0;
}

}  // namespace cuda_emulation

// ===========================================================================
// Public runtime API.
extern "C" {

cudaError_t cudaGetLastError(void) {
  const cudaError_t error = tls_last_error;
  tls_last_error = cudaSuccess;
  return error;
}

cudaError_t cudaPeekAtLastError(void) { return tls_last_error; }

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInitializationError:
      return "initialization error";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer:
      return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorLaunchOutOfResources:
      return "too many resources requested for launch";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    case cudaErrorNotSupported:
      return "operation not supported";
  }
  return "unrecognized error code";
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return fail(cudaErrorInvalidValue);
  *count = kDeviceCount;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return fail(cudaErrorInvalidValue);
  *device = tls_current_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= kDeviceCount) return fail(cudaErrorInvalidDevice);
  tls_current_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return fail(cudaErrorInvalidValue);
  if (device < 0 || device >= kDeviceCount) return fail(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof(*prop));
  copy_text(prop->name, sizeof(prop->name), "Emulated CUDA device (CPU reference)");
  prop->totalGlobalMem = host_memory_bytes();
  prop->maxThreadsPerBlock = static_cast<int>(cuda_emulation::kMaxThreadsPerBlock);
  // Blocks execute one after another on the launching host thread.
  prop->multiProcessorCount = 1;
  // The emulation offers the sm_80 feature set used by the kernels here:
  // float/double atomicAdd, *_sync warp primitives.
  prop->major = 8;
  prop->minor = 0;
  prop->warpSize = static_cast<int>(cuda_emulation::kWarpSize);
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  return cudaSuccess;  // every operation completes before it returns
}

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (devPtr == nullptr) return fail(cudaErrorInvalidValue);
  *devPtr = nullptr;
  if (size == 0) return cudaSuccess;
  const size_t rounded = (size + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  if (rounded < size) return fail(cudaErrorMemoryAllocation);
  void* memory = aligned_alloc(kDeviceAlignment, rounded);
  if (memory == nullptr) return fail(cudaErrorMemoryAllocation);
  if (!range_insert(g_allocations, reinterpret_cast<uintptr_t>(memory), size)) {
    free(memory);
    return fail(cudaErrorMemoryAllocation);
  }
  *devPtr = memory;
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  if (devPtr == nullptr) return cudaSuccess;
  if (!range_erase(g_allocations, reinterpret_cast<uintptr_t>(devPtr))) {
    return fail(cudaErrorInvalidDevicePointer);
  }
  free(devPtr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  const cudaError_t status = check_copy(dst, src, count, kind);
  if (status != cudaSuccess) return fail(status);
  if (count > 0) memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  const cudaError_t status = check_copy(dst, src, count, kind);
  if (status != cudaSuccess) return fail(status);
  if (count > 0) memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  if (count == 0) return cudaSuccess;
  if (devPtr == nullptr || !is_device_range(devPtr, count)) return fail(cudaErrorInvalidValue);
  memset(devPtr, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  if (!is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (count == 0) return cudaSuccess;
  if (devPtr == nullptr || !is_device_range(devPtr, count)) return fail(cudaErrorInvalidValue);
  memset(devPtr, value, count);
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  if (pStream == nullptr) return fail(cudaErrorInvalidValue);
  StreamObject* stream = static_cast<StreamObject*>(malloc(sizeof(StreamObject)));
  if (stream == nullptr) return fail(cudaErrorMemoryAllocation);
  stream->device = tls_current_device;
  if (!range_insert(g_streams, reinterpret_cast<uintptr_t>(stream), sizeof(StreamObject))) {
    free(stream);
    return fail(cudaErrorMemoryAllocation);
  }
  *pStream = reinterpret_cast<cudaStream_t>(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  // The legacy default stream cannot be destroyed.
  if (stream == nullptr || !range_erase(g_streams, reinterpret_cast<uintptr_t>(stream))) {
    return fail(cudaErrorInvalidResourceHandle);
  }
  free(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaSuccess;  // work on a stream has completed when its call returned
}

}  // extern "C"
