// Records every call and return of an instrumented library (-finstrument-functions) with a
// CLOCK_MONOTONIC time, and writes them when the process exits to the file named by
// $EXPLORER_NATIVE_EVENTS. explorer links this file into an instrumented build of the
// bundled runtime; the library must be linked with -Wl,-Bsymbolic so that its calls reach
// these hooks and not glibc's no-op ones, which would otherwise win symbol lookup.
//
// Output: three text lines, then fixed-size little-endian records:
//   explorer-native-events 1
//   library <path of the library this file is linked into>
//   events <recorded> dropped <count of calls not recorded because the cap was reached>
//   records: uint64 time_ns, uint64 function offset, uint64 call-site offset, uint32 kind,
//            uint32 calls (on a call record: how many consecutive identical calls it stands for)
// Offsets are relative to the library's load address, so they match its symbol table.
// A call of a function that calls nothing, made again right after it returned, from the same
// site, is counted on the first call's record instead of recorded again: a helper called once
// per element (a loop of 80,000 calls) costs two records, not 160,000.

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NO_TRACE __attribute__((no_instrument_function))

namespace {

struct Record {
  uint64_t time_ns;
  uint64_t function;
  uint64_t site;
  uint32_t kind;  // 1: call, 2: return
  uint32_t calls;
};

Record* records = nullptr;
uint64_t recorded = 0;
uint64_t capacity = 0;
uint64_t limit = 0;  // most records kept; 0 until the first event reads the environment
uint64_t dropped_calls = 0;
uint64_t open_recorded = 0;  // recorded calls whose return is still due: room is kept for them
uint64_t open_after_cap = 0;  // calls entered after the cap, whose returns must be dropped too
uintptr_t base = 0;

NO_TRACE void start() {
  const char* cap = getenv("EXPLORER_NATIVE_MAX_EVENTS");
  limit = cap ? strtoull(cap, nullptr, 10) : 2000000;
  if (limit == 0) limit = 1;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&start), &info) && info.dli_fbase) {
    base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  }
}

NO_TRACE uint64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

NO_TRACE bool reserve() {
  if (recorded < capacity) return true;
  uint64_t grown = capacity ? capacity * 2 : 65536;
  if (grown > limit) grown = limit;
  if (grown <= capacity) return false;
  Record* bigger = static_cast<Record*>(realloc(records, grown * sizeof(Record)));
  if (!bigger) return false;
  records = bigger;
  capacity = grown;
  return true;
}

NO_TRACE bool repeats_last_leaf(void* function, void* site) {
  if (recorded < 2) return false;
  const Record& call = records[recorded - 2];
  const Record& ret = records[recorded - 1];
  const uint64_t offset = reinterpret_cast<uintptr_t>(function) - base;
  return call.kind == 1 && ret.kind == 2 && call.function == offset && ret.function == offset &&
         call.site == reinterpret_cast<uintptr_t>(site) - base && call.calls < UINT32_MAX;
}

NO_TRACE void record(uint32_t kind, void* function, void* site) {
  if (limit == 0) start();
  if (kind == 1 && open_after_cap == 0 && repeats_last_leaf(function, site)) {
    --recorded;  // reopen the last call: its return is recorded again when this one returns
    ++records[recorded - 1].calls;
    ++open_recorded;
    return;
  }
  if (kind == 1 && (open_after_cap > 0 || recorded + open_recorded + 2 > limit)) {
    // Past the cap: count the call, and drop its return so the recording stays balanced.
    ++dropped_calls;
    ++open_after_cap;
    return;
  }
  if (kind == 2 && open_after_cap > 0) {
    --open_after_cap;
    return;
  }
  if (!reserve()) return;  // out of memory: nothing sensible is left to do
  if (kind == 1) {
    ++open_recorded;
  } else if (open_recorded > 0) {
    --open_recorded;
  }
  Record& r = records[recorded++];
  r.time_ns = now_ns();
  r.function = reinterpret_cast<uintptr_t>(function) - base;
  r.site = reinterpret_cast<uintptr_t>(site) - base;
  r.kind = kind;
  r.calls = 1;
}

__attribute__((destructor)) NO_TRACE void write_records() {
  const char* path = getenv("EXPLORER_NATIVE_EVENTS");
  if (!path || !*path) return;
  FILE* out = fopen(path, "wb");
  if (!out) return;
  Dl_info info;
  const char* library = "";
  if (dladdr(reinterpret_cast<void*>(&write_records), &info) && info.dli_fname) library = info.dli_fname;
  fprintf(out, "explorer-native-events 1\nlibrary %s\nevents %llu dropped %llu\n", library,
          static_cast<unsigned long long>(recorded), static_cast<unsigned long long>(dropped_calls));
  if (recorded) fwrite(records, sizeof(Record), recorded, out);
  fclose(out);
}

}  // namespace

extern "C" {

NO_TRACE void __cyg_profile_func_enter(void* function, void* site) { record(1, function, site); }

NO_TRACE void __cyg_profile_func_exit(void* function, void* site) { record(2, function, site); }

}  // extern "C"
