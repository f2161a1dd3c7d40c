// What a C++/CUDA extension includes: ATen, operator registration and the
// pybind11 subset.
#pragma once

#include <ATen/ATen.h>
#include <pybind11/pybind11.h>
#include <torch/library.h>

// The build passes -DTORCH_EXTENSION_NAME=<last part of the extension's
// dotted name>; this default serves compilers run without it.
#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME mini_ops_C
#endif

namespace py = pybind11;
