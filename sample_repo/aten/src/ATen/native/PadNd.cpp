#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

#include <vector>

namespace at::native {

// `pad` lists (left, right) pairs starting from the LAST dimension. Negative
// amounts crop instead of pad.
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  TORCH_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ",
              pad.size());
  const int64_t l_inp = self.dim();
  const int64_t l_pad = static_cast<int64_t>(pad.size()) / 2;
  TORCH_CHECK(l_inp >= l_pad, "Length of pad should be no more than twice the number of "
              "dimensions of the input. Pad length is ", pad.size(), " while the input has ",
              l_inp, " dimensions.");

  std::vector<int64_t> new_shape = self.sizes().vec();
  for (int64_t i = 0; i < l_pad; ++i) {
    const int64_t dim = l_inp - 1 - i;
    new_shape[dim] += pad[2 * i] + pad[2 * i + 1];
    TORCH_CHECK(new_shape[dim] > 0, "The input size ", self.size(dim), ", plus negative padding ",
                pad[2 * i], " and ", pad[2 * i + 1], " resulted in a negative output size");
  }

  Tensor output = at::empty(new_shape, self.options());
  output.fill_(value);

  // Narrow both sides to the overlapping region, then copy it across.
  Tensor c_input = self;
  Tensor c_output = output;
  for (int64_t i = 0; i < l_pad; ++i) {
    const int64_t dim = l_inp - 1 - i;
    const int64_t left = pad[2 * i];
    const int64_t right = pad[2 * i + 1];
    if (left < 0) {
      c_input = c_input.narrow(dim, -left, c_input.size(dim) + left);
    } else {
      c_output = c_output.narrow(dim, left, c_output.size(dim) - left);
    }
    if (right < 0) {
      c_input = c_input.narrow(dim, 0, c_input.size(dim) + right);
    } else {
      c_output = c_output.narrow(dim, 0, c_output.size(dim) - right);
    }
  }
  c_output.copy_(c_input);
  return output;
}

Tensor pad_symint(const Tensor& self, c10::SymIntArrayRef pad, std::string_view mode,
                  std::optional<double> value) {
  if (mode == "constant") {
    return at::constant_pad_nd_symint(self, pad, value.value_or(0.0));
  }
  TORCH_CHECK(!value.has_value() || *value == 0,
              "Padding mode \"", mode, "\" doesn't take in value argument");
  AT_ERROR("pad: mode \"", mode, "\" is not implemented in the sample tree (only \"constant\")");
}

} // namespace at::native
