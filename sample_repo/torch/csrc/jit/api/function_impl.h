#pragma once

#include <functional>
#include <string>
#include <utility>

namespace torch {
namespace jit {

// A function whose graph is made the first time it is needed, by the creator it was given.
struct GraphFunction {
  GraphFunction(std::string name, std::function<void(GraphFunction&)> function_creator)
      : name_(std::move(name)), function_creator_(std::move(function_creator)) {}

  void ensure_defined();
  void set_creator(std::function<void(GraphFunction&)> creator) {
    function_creator_ = std::move(creator);
  }
  void redefine() {
    function_creator_(*this);
  }
  const std::string& name() const {
    return name_;
  }

 private:
  std::string name_;
  std::function<void(GraphFunction&)> function_creator_;
};

} // namespace jit
} // namespace torch
