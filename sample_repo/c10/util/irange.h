#pragma once

#include <cstdint>
#include <type_traits>

namespace c10 {

// Half-open integer range usable in range-for: for (auto i : c10::irange(n)).
template <typename T>
class integer_range {
 public:
  class iterator {
   public:
    explicit iterator(T v) : v_(v) {}
    T operator*() const { return v_; }
    iterator& operator++() {
      ++v_;
      return *this;
    }
    bool operator!=(const iterator& o) const { return v_ != o.v_; }

   private:
    T v_;
  };

  integer_range(T begin, T end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }

 private:
  T begin_;
  T end_;
};

template <typename T, typename = std::enable_if_t<std::is_integral<T>::value>>
integer_range<T> irange(T end) {
  return integer_range<T>(T(0), end);
}

template <typename T1, typename T2,
          typename = std::enable_if_t<std::is_integral<T1>::value && std::is_integral<T2>::value>>
integer_range<T2> irange(T1 begin, T2 end) {
  return integer_range<T2>(static_cast<T2>(begin), end);
}

} // namespace c10
