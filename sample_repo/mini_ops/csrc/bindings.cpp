// The pybind11 module mini_ops._C: plain functions and a class, bound by hand.
#include <torch/extension.h>

#include "scale.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scale", &mini_ops::scale, "x * factor, on the device of x");
  py::class_<mini_ops::Counter>(m, "Counter")
      .def(py::init<int>())
      .def("step", &mini_ops::Counter::step);
}
