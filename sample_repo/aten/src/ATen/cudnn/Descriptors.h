#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/cuda/Exceptions.h>

#include <cudnn.h>

namespace at {
namespace native {

TORCH_API cudnnDataType_t getCudnnDataType(const Tensor& tensor);

// How to create / destroy each cuDNN descriptor kind.
template <typename T>
struct DescriptorTraits;

template <>
struct DescriptorTraits<cudnnTensorDescriptor_t> {
  static cudnnStatus_t create(cudnnTensorDescriptor_t* d) { return cudnnCreateTensorDescriptor(d); }
  static cudnnStatus_t destroy(cudnnTensorDescriptor_t d) { return cudnnDestroyTensorDescriptor(d); }
};
template <>
struct DescriptorTraits<cudnnFilterDescriptor_t> {
  static cudnnStatus_t create(cudnnFilterDescriptor_t* d) { return cudnnCreateFilterDescriptor(d); }
  static cudnnStatus_t destroy(cudnnFilterDescriptor_t d) { return cudnnDestroyFilterDescriptor(d); }
};
template <>
struct DescriptorTraits<cudnnConvolutionDescriptor_t> {
  static cudnnStatus_t create(cudnnConvolutionDescriptor_t* d) {
    return cudnnCreateConvolutionDescriptor(d);
  }
  static cudnnStatus_t destroy(cudnnConvolutionDescriptor_t d) {
    return cudnnDestroyConvolutionDescriptor(d);
  }
};
template <>
struct DescriptorTraits<cudnnDropoutDescriptor_t> {
  static cudnnStatus_t create(cudnnDropoutDescriptor_t* d) { return cudnnCreateDropoutDescriptor(d); }
  static cudnnStatus_t destroy(cudnnDropoutDescriptor_t d) { return cudnnDestroyDropoutDescriptor(d); }
};
template <>
struct DescriptorTraits<cudnnRNNDescriptor_t> {
  static cudnnStatus_t create(cudnnRNNDescriptor_t* d) { return cudnnCreateRNNDescriptor(d); }
  static cudnnStatus_t destroy(cudnnRNNDescriptor_t d) { return cudnnDestroyRNNDescriptor(d); }
};
template <>
struct DescriptorTraits<cudnnRNNDataDescriptor_t> {
  static cudnnStatus_t create(cudnnRNNDataDescriptor_t* d) { return cudnnCreateRNNDataDescriptor(d); }
  static cudnnStatus_t destroy(cudnnRNNDataDescriptor_t d) { return cudnnDestroyRNNDataDescriptor(d); }
};

// RAII owner of one descriptor, created lazily on first mutation.
template <typename T>
class Descriptor {
 public:
  Descriptor() = default;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (desc_ != nullptr) (void)DescriptorTraits<T>::destroy(desc_);
  }

  T desc() const { return desc_; }

 protected:
  T mut_desc() {
    if (desc_ == nullptr) AT_CUDNN_CHECK(DescriptorTraits<T>::create(&desc_));
    return desc_;
  }

 private:
  T desc_ = nullptr;
};

class TORCH_API TensorDescriptor : public Descriptor<cudnnTensorDescriptor_t> {
 public:
  // pad_to: cuDNN wants at least this many dims; trailing ones are added.
  void set(const Tensor& t, size_t pad_to = 4);
  void set(cudnnDataType_t dtype, IntArrayRef sizes, IntArrayRef strides, size_t pad_to);
};

class TORCH_API FilterDescriptor : public Descriptor<cudnnFilterDescriptor_t> {
 public:
  void set(const Tensor& weight, int64_t pad_to = 4);
};

class TORCH_API ConvolutionDescriptor : public Descriptor<cudnnConvolutionDescriptor_t> {
 public:
  void set(cudnnDataType_t dtype, int dim, const int* pad, const int* stride,
           const int* dilation, int groups, bool allow_tf32);
};

class TORCH_API DropoutDescriptor : public Descriptor<cudnnDropoutDescriptor_t> {
 public:
  // `state` must outlive the descriptor; it holds the RNG state.
  void set(cudnnHandle_t handle, float dropout, const Tensor& state);
  void set_no_dropout(cudnnHandle_t handle);
};

class TORCH_API RNNDescriptor : public Descriptor<cudnnRNNDescriptor_t> {
 public:
  void set(cudnnRNNMode_t mode, int64_t input_size, int64_t hidden_size, int64_t num_layers,
           bool has_biases, bool bidirectional, cudnnDataType_t dtype,
           const DropoutDescriptor& dropout);
};

class TORCH_API RNNDataDescriptor : public Descriptor<cudnnRNNDataDescriptor_t> {
 public:
  void set(cudnnDataType_t dtype, cudnnRNNDataLayout_t layout, int64_t seq_length,
           int64_t batch_size, int64_t vector_size, const int* seq_lengths);
};

} // namespace native
} // namespace at
