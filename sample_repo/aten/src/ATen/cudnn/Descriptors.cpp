#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()

#include <ATen/cudnn/Descriptors.h>
#include <c10/util/irange.h>

#include <vector>

namespace at {
namespace native {

cudnnDataType_t getCudnnDataType(const Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case ScalarType::Float:
      return CUDNN_DATA_FLOAT;
    case ScalarType::Double:
      return CUDNN_DATA_DOUBLE;
    default:
      break;
  }
  AT_ERROR("getCudnnDataType: unsupported dtype ", tensor.scalar_type());
}

void TensorDescriptor::set(const Tensor& t, size_t pad_to) {
  set(getCudnnDataType(t), t.sizes(), t.strides(), pad_to);
}

void TensorDescriptor::set(cudnnDataType_t dtype, IntArrayRef sizes, IntArrayRef strides,
                           size_t pad_to) {
  const size_t dim = sizes.size();
  TORCH_CHECK(dim <= CUDNN_DIM_MAX && pad_to <= CUDNN_DIM_MAX,
              "cuDNN supports at most ", CUDNN_DIM_MAX, " dimensions");
  const size_t nb = dim < pad_to ? pad_to : dim;
  std::vector<int> dims(nb, 1);
  std::vector<int> strd(nb, 1);
  for (auto i : c10::irange(dim)) {
    dims[i] = static_cast<int>(sizes[i]);
    strd[i] = static_cast<int>(strides[i]);
  }
  AT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(mut_desc(), dtype, static_cast<int>(nb), dims.data(),
                                            strd.data()));
}

void FilterDescriptor::set(const Tensor& weight, int64_t pad_to) {
  TORCH_CHECK(weight.is_contiguous(), "cuDNN filters must be contiguous");
  const int64_t dim = weight.dim();
  const int64_t nb = dim < pad_to ? pad_to : dim;
  std::vector<int> dims(static_cast<size_t>(nb), 1);
  for (auto i : c10::irange(dim)) {
    dims[i] = static_cast<int>(weight.size(i));
  }
  AT_CUDNN_CHECK(cudnnSetFilterNdDescriptor(mut_desc(), getCudnnDataType(weight),
                                            CUDNN_TENSOR_NCHW, static_cast<int>(nb),
                                            dims.data()));
}

void ConvolutionDescriptor::set(cudnnDataType_t dtype, int dim, const int* pad, const int* stride,
                                const int* dilation, int groups, bool allow_tf32) {
  AT_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(mut_desc(), dim, pad, stride, dilation,
                                                 CUDNN_CROSS_CORRELATION, dtype));
  AT_CUDNN_CHECK(cudnnSetConvolutionGroupCount(mut_desc(), groups));
  const cudnnMathType_t math =
      (dtype == CUDNN_DATA_FLOAT && !allow_tf32) ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  AT_CUDNN_CHECK(cudnnSetConvolutionMathType(mut_desc(), math));
}

void DropoutDescriptor::set(cudnnHandle_t handle, float dropout, const Tensor& state) {
  size_t state_bytes = 0;
  AT_CUDNN_CHECK(cudnnDropoutGetStatesSize(handle, &state_bytes));
  TORCH_CHECK(static_cast<size_t>(state.numel()) * sizeof(float) >= state_bytes,
              "dropout state buffer too small");
  AT_CUDNN_CHECK(cudnnSetDropoutDescriptor(mut_desc(), handle, dropout, state.data_ptr(),
                                           state_bytes, /*seed=*/0));
}

void DropoutDescriptor::set_no_dropout(cudnnHandle_t handle) {
  AT_CUDNN_CHECK(cudnnSetDropoutDescriptor(mut_desc(), handle, 0.0f, nullptr, 0, 0));
}

void RNNDescriptor::set(cudnnRNNMode_t mode, int64_t input_size, int64_t hidden_size,
                        int64_t num_layers, bool has_biases, bool bidirectional,
                        cudnnDataType_t dtype, const DropoutDescriptor& dropout) {
  AT_CUDNN_CHECK(cudnnSetRNNDescriptor_v8(
      mut_desc(), CUDNN_RNN_ALGO_STANDARD, mode,
      has_biases ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS,
      bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dtype, dtype,
      CUDNN_DEFAULT_MATH, static_cast<int32_t>(input_size), static_cast<int32_t>(hidden_size),
      static_cast<int32_t>(hidden_size), static_cast<int32_t>(num_layers), dropout.desc(),
      CUDNN_RNN_PADDED_IO_ENABLED));
}

void RNNDataDescriptor::set(cudnnDataType_t dtype, cudnnRNNDataLayout_t layout,
                            int64_t seq_length, int64_t batch_size, int64_t vector_size,
                            const int* seq_lengths) {
  float fill = 0.0f;
  AT_CUDNN_CHECK(cudnnSetRNNDataDescriptor(
      mut_desc(), dtype, layout, static_cast<int>(seq_length),
      static_cast<int>(batch_size), static_cast<int>(vector_size), seq_lengths, &fill));
}

} // namespace native
} // namespace at

#endif // AT_CUDNN_ENABLED()
