#include "torch/csrc/jit/api/function_impl.h"

namespace torch {
namespace jit {

void GraphFunction::ensure_defined() {
  if (function_creator_) {
    auto creator = function_creator_;
    function_creator_ = nullptr;
    creator(*this);
  }
}

} // namespace jit
} // namespace torch
