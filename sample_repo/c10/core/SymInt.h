#pragma once

#include <c10/macros/Export.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <optional>
#include <ostream>

namespace c10 {

// In the sample tree a SymInt only ever holds a concrete value; the symbolic
// (traced) case of the real library is left out. Layout matches int64_t so
// int and SymInt lists can be reinterpreted into each other.
class C10_API SymInt {
 public:
  /*implicit*/ constexpr SymInt(int64_t v = 0) : data_(v) {}

  bool is_heap_allocated() const { return false; }
  int64_t expect_int() const { return data_; }
  int64_t guard_int(const char* /*file*/, int64_t /*line*/) const { return data_; }
  std::optional<int64_t> maybe_as_int() const { return data_; }

  SymInt operator+(const SymInt& o) const { return SymInt(data_ + o.data_); }
  SymInt operator-(const SymInt& o) const { return SymInt(data_ - o.data_); }
  SymInt operator*(const SymInt& o) const { return SymInt(data_ * o.data_); }
  SymInt operator/(const SymInt& o) const { return SymInt(data_ / o.data_); }
  bool operator==(const SymInt& o) const { return data_ == o.data_; }
  bool operator!=(const SymInt& o) const { return data_ != o.data_; }
  bool operator<(const SymInt& o) const { return data_ < o.data_; }

 private:
  int64_t data_;
};

static_assert(sizeof(SymInt) == sizeof(int64_t), "SymInt must stay int64-sized");

inline std::ostream& operator<<(std::ostream& os, const SymInt& s) {
  return os << s.expect_int();
}

} // namespace c10
