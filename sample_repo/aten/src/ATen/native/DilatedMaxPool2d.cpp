#include <ATen/NativeFunctions.h>
#include <ATen/NativeMetaFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Pool.h>

#include <vector>

namespace at {
namespace meta {

using namespace ::at::native;

TORCH_META_FUNC(max_pool2d_with_indices)(const Tensor& input, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding,
                                         IntArrayRef dilation, bool ceil_mode) {
  TORCH_CHECK(!kernel_size.empty(), "max_pool2d: kernel_size must not be empty");
  const auto [kH, kW] = pool_pair(kernel_size, "kernel_size", {0, 0});
  const auto [dH, dW] = pool_pair(stride, "stride", {kH, kW});
  const auto [padH, padW] = pool_pair(padding, "padding", {0, 0});
  const auto [dilationH, dilationW] = pool_pair(dilation, "dilation", {1, 1});

  TORCH_CHECK(input.dim() == 3 || input.dim() == 4,
              "max_pool2d: expected 3D or 4D input, got ", input.dim(), "D");
  TORCH_CHECK(kH > 0 && kW > 0 && dH > 0 && dW > 0 && dilationH > 0 && dilationW > 0,
              "max_pool2d: kernel, stride and dilation must be positive");
  TORCH_CHECK(padH <= kH / 2 && padW <= kW / 2,
              "pad should be at most half of effective kernel size");

  const int64_t in_h = input.size(-2);
  const int64_t in_w = input.size(-1);
  const int64_t out_h = pooling_output_shape<int64_t>(in_h, kH, padH, dH, dilationH, ceil_mode);
  const int64_t out_w = pooling_output_shape<int64_t>(in_w, kW, padW, dW, dilationW, ceil_mode);
  TORCH_CHECK(out_h >= 1 && out_w >= 1, "max_pool2d: output size is too small (", out_h, "x",
              out_w, ")");

  std::vector<int64_t> out_sizes = input.sizes().vec();
  out_sizes[out_sizes.size() - 2] = out_h;
  out_sizes[out_sizes.size() - 1] = out_w;
  set_output_raw_strided(0, out_sizes, {}, input.options());
  set_output_raw_strided(1, out_sizes, {}, input.options().dtype(kLong));
}

} // namespace meta

namespace native {

DEFINE_DISPATCH(max_pool2d_kernel);

TORCH_IMPL_FUNC(max_pool2d_with_indices_out_cpu)(const Tensor& input, IntArrayRef kernel_size,
                                                 IntArrayRef stride, IntArrayRef padding,
                                                 IntArrayRef dilation, bool ceil_mode,
                                                 const Tensor& output, const Tensor& indices) {
  (void)ceil_mode; // already folded into the output shape by meta()
  const auto [kH, kW] = pool_pair(kernel_size, "kernel_size", {0, 0});
  const auto [dH, dW] = pool_pair(stride, "stride", {kH, kW});
  const auto [padH, padW] = pool_pair(padding, "padding", {0, 0});
  const auto [dilationH, dilationW] = pool_pair(dilation, "dilation", {1, 1});
  max_pool2d_kernel(kCPU, output, indices, input.contiguous(), kW, kH, dW, dH, padW, padH,
                    dilationW, dilationH);
}

} // namespace native
} // namespace at
