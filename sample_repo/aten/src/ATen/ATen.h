#pragma once

// Umbrella header, as user code and extensions include it.
#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Scalar.h>
#include <c10/core/TensorOptions.h>
