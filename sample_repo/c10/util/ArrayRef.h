#pragma once

#include <c10/util/Exception.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace c10 {

// Non-owning view of a contiguous run of T (pointer + length).
template <typename T>
class ArrayRef {
 public:
  using iterator = const T*;
  using value_type = T;

  constexpr ArrayRef() : data_(nullptr), len_(0) {}
  // A single element, so that `IntArrayRef stride = 1` works as a default.
  constexpr ArrayRef(const T& one) : data_(&one), len_(1) {}
  constexpr ArrayRef(const T* data, size_t len) : data_(data), len_(len) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), len_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), len_(N) {}
  // Valid only for the full-expression that built the list (call arguments).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(const std::initializer_list<T>& il)
      : data_(il.begin() == il.end() ? nullptr : il.begin()), len_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return len_; }
  constexpr bool empty() const { return len_ == 0; }
  constexpr iterator begin() const { return data_; }
  constexpr iterator end() const { return data_ + len_; }

  const T& front() const {
    TORCH_CHECK(!empty(), "ArrayRef: front() on empty list");
    return data_[0];
  }
  const T& back() const {
    TORCH_CHECK(!empty(), "ArrayRef: back() on empty list");
    return data_[len_ - 1];
  }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    TORCH_CHECK(i < len_, "ArrayRef: index ", i, " out of range ", len_);
    return data_[i];
  }

  ArrayRef<T> slice(size_t start, size_t n) const {
    TORCH_CHECK(start + n <= len_, "ArrayRef: bad slice");
    return ArrayRef<T>(data_ + start, n);
  }
  ArrayRef<T> slice(size_t start) const { return slice(start, len_ - start); }

  bool equals(ArrayRef<T> other) const {
    if (len_ != other.len_) return false;
    for (size_t i = 0; i < len_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }

  std::vector<T> vec() const { return std::vector<T>(data_, data_ + len_); }

 private:
  const T* data_;
  size_t len_;
};

template <typename T>
std::ostream& operator<<(std::ostream& out, ArrayRef<T> list) {
  out << "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out << ", ";
    out << list[i];
  }
  return out << "]";
}

using IntArrayRef = ArrayRef<int64_t>;

} // namespace c10

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
} // namespace at
