// CPU reference implementation of the cuDNN API declared in cudnn.h.
//
// Descriptors are plain structs that remember what was set; the compute
// entry points read them, check the shapes the way cuDNN does (mismatches
// are CUDNN_STATUS_BAD_PARAM, unsupported combinations
// CUDNN_STATUS_NOT_SUPPORTED) and compute directly in float or double, with
// sums accumulated in double.
//
// Built with -finstrument-functions: only the cudnn* entry points may appear
// as traced frames, so helpers carry CUDNN_INTERNAL and no C++ library
// templates are used.
#include "cudnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CUDNN_INTERNAL __attribute__((no_instrument_function))

struct cudnnContext {
  cudaStream_t stream;
};

struct cudnnTensorStruct {
  bool is_set;
  cudnnDataType_t data_type;
  int nb_dims;
  int dims[CUDNN_DIM_MAX];
  int strides[CUDNN_DIM_MAX];
};

struct cudnnFilterStruct {
  bool is_set;
  cudnnDataType_t data_type;
  cudnnTensorFormat_t format;
  int nb_dims;
  int dims[CUDNN_DIM_MAX];  // always K, C, spatial..., whatever the format
};

struct cudnnConvolutionStruct {
  bool is_set;
  int spatial_dims;
  int padding[CUDNN_DIM_MAX - 2];
  int stride[CUDNN_DIM_MAX - 2];
  int dilation[CUDNN_DIM_MAX - 2];
  cudnnConvolutionMode_t mode;
  cudnnDataType_t compute_type;
  int group_count;
  cudnnMathType_t math_type;
};

struct cudnnDropoutStruct {
  bool is_set;
  float probability;
  void* states;  // a DropoutGeneratorState in device memory, or null
  size_t state_bytes;
  unsigned long long seed;
};

struct cudnnRNNStruct {
  bool is_set;
  cudnnRNNAlgo_t algo;
  cudnnRNNMode_t cell_mode;
  cudnnRNNBiasMode_t bias_mode;
  cudnnDirectionMode_t direction_mode;
  cudnnRNNInputMode_t input_mode;
  cudnnDataType_t data_type;
  cudnnDataType_t math_precision;
  cudnnMathType_t math_type;
  int input_size;
  int hidden_size;
  int projection_size;
  int layer_count;
  cudnnDropoutDescriptor_t dropout;
  uint32_t aux_flags;
};

struct cudnnRNNDataStruct {
  bool is_set;
  cudnnDataType_t data_type;
  cudnnRNNDataLayout_t layout;
  int max_sequence_length;
  int batch_size;
  int vector_size;
  int* sequence_lengths;  // batch_size entries, owned
  bool has_padding_fill;
  double padding_fill;
};

namespace {

// What the dropout states buffer holds: a counter-based generator, so the
// mask of an element depends only on (seed, offset + element index).
struct DropoutGeneratorState {
  uint64_t seed;
  uint64_t offset;
};

template <typename T>
CUDNN_INTERNAL cudnnStatus_t create_zeroed(T** out) {
  if (out == nullptr) return CUDNN_STATUS_BAD_PARAM;
  T* object = static_cast<T*>(calloc(1, sizeof(T)));
  if (object == nullptr) return CUDNN_STATUS_ALLOC_FAILED;
  *out = object;
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_INTERNAL bool is_computable_type(cudnnDataType_t type) {
  return type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_DOUBLE;
}

CUDNN_INTERNAL bool is_known_type(cudnnDataType_t type) {
  return type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_DOUBLE || type == CUDNN_DATA_HALF ||
         type == CUDNN_DATA_INT8 || type == CUDNN_DATA_INT32 || type == CUDNN_DATA_BFLOAT16;
}

// Host scaling factors are double for double data and float otherwise.
CUDNN_INTERNAL double read_scale(const void* scale, cudnnDataType_t data_type) {
  return data_type == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(scale)
                                        : static_cast<double>(*static_cast<const float*>(scale));
}

// A tensor of 3 to 5 dims seen as N, C, D, H, W: missing leading spatial
// dims get size 1, so 1-D, 2-D and 3-D data share one set of loops.
struct Layout5 {
  long long size[5];
  long long stride[5];
};

CUDNN_INTERNAL bool layout_from_dims(int nb_dims, const int* dims, const int* strides,
                                     Layout5* layout) {
  if (nb_dims < 3 || nb_dims > 5) return false;
  const int missing = 5 - nb_dims;
  for (int i = 0; i < 5; ++i) {
    layout->size[i] = 1;
    layout->stride[i] = 0;
  }
  layout->size[0] = dims[0];
  layout->stride[0] = strides[0];
  layout->size[1] = dims[1];
  layout->stride[1] = strides[1];
  for (int i = 2; i < nb_dims; ++i) {
    layout->size[i + missing] = dims[i];
    layout->stride[i + missing] = strides[i];
  }
  return true;
}

CUDNN_INTERNAL bool tensor_layout(const cudnnTensorStruct* desc, Layout5* layout) {
  return layout_from_dims(desc->nb_dims, desc->dims, desc->strides, layout);
}

// Filters are packed: K, C, spatial in NCHW format; K, spatial, C in NHWC.
CUDNN_INTERNAL bool filter_layout(const cudnnFilterStruct* desc, Layout5* layout) {
  int strides[CUDNN_DIM_MAX];
  const int nb = desc->nb_dims;
  if (desc->format == CUDNN_TENSOR_NCHW) {
    long long running = 1;
    for (int i = nb - 1; i >= 0; --i) {
      strides[i] = static_cast<int>(running);
      running *= desc->dims[i];
    }
  } else {
    long long running = desc->dims[1];
    strides[1] = 1;
    for (int i = nb - 1; i >= 2; --i) {
      strides[i] = static_cast<int>(running);
      running *= desc->dims[i];
    }
    strides[0] = static_cast<int>(running);
  }
  return layout_from_dims(nb, desc->dims, strides, layout);
}

CUDNN_INTERNAL long long offset5(const Layout5& layout, long long n, long long c, long long d,
                                 long long h, long long w) {
  return n * layout.stride[0] + c * layout.stride[1] + d * layout.stride[2] +
         h * layout.stride[3] + w * layout.stride[4];
}

// ---------------------------------------------------------------------------
// Convolution.

struct ConvolutionShape {
  Layout5 x;
  Layout5 w;
  Layout5 y;
  long long padding[3];
  long long stride[3];
  long long dilation[3];
  int groups;
  bool flip_filter;  // CUDNN_CONVOLUTION is a true convolution
  cudnnDataType_t data_type;
};

CUDNN_INTERNAL long long output_extent(long long input, long long filter, long long padding,
                                       long long stride, long long dilation) {
  const long long span = (filter - 1) * dilation + 1;
  return (input + 2 * padding - span) / stride + 1;
}

// Checks that x, w, conv and (when given) y describe one convolution and
// fills `shape`; with y == nullptr only the output dims are computed.
CUDNN_INTERNAL cudnnStatus_t convolution_shape(const cudnnTensorStruct* x,
                                               const cudnnFilterStruct* w,
                                               const cudnnConvolutionStruct* conv,
                                               const cudnnTensorStruct* y, int* output_dims,
                                               ConvolutionShape* shape) {
  if (x == nullptr || w == nullptr || conv == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (!x->is_set || !w->is_set || !conv->is_set) return CUDNN_STATUS_BAD_PARAM;
  const int nb = x->nb_dims;
  if (w->nb_dims != nb || conv->spatial_dims != nb - 2) return CUDNN_STATUS_BAD_PARAM;
  if (nb > 5) return CUDNN_STATUS_NOT_SUPPORTED;
  if (x->data_type != w->data_type) return CUDNN_STATUS_BAD_PARAM;
  if (!is_computable_type(x->data_type)) return CUDNN_STATUS_NOT_SUPPORTED;
  if (conv->compute_type != x->data_type) return CUDNN_STATUS_NOT_SUPPORTED;
  const int groups = conv->group_count;
  const int out_channels = w->dims[0];
  if (x->dims[1] != w->dims[1] * groups || out_channels % groups != 0) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  int dims[CUDNN_DIM_MAX];
  dims[0] = x->dims[0];
  dims[1] = out_channels;
  for (int i = 0; i < nb - 2; ++i) {
    const long long extent = output_extent(x->dims[i + 2], w->dims[i + 2], conv->padding[i],
                                           conv->stride[i], conv->dilation[i]);
    if (extent <= 0) return CUDNN_STATUS_BAD_PARAM;
    dims[i + 2] = static_cast<int>(extent);
  }
  if (output_dims != nullptr) {
    for (int i = 0; i < nb; ++i) output_dims[i] = dims[i];
  }
  if (y != nullptr) {
    if (!y->is_set || y->nb_dims != nb || y->data_type != x->data_type) {
      return CUDNN_STATUS_BAD_PARAM;
    }
    for (int i = 0; i < nb; ++i) {
      if (y->dims[i] != dims[i]) return CUDNN_STATUS_BAD_PARAM;
    }
  }
  if (shape != nullptr) {
    if (!tensor_layout(x, &shape->x) || !filter_layout(w, &shape->w)) {
      return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (y != nullptr && !tensor_layout(y, &shape->y)) return CUDNN_STATUS_NOT_SUPPORTED;
    const int missing = 5 - nb;
    for (int i = 0; i < 3; ++i) {
      shape->padding[i] = 0;
      shape->stride[i] = 1;
      shape->dilation[i] = 1;
    }
    for (int i = 0; i < nb - 2; ++i) {
      shape->padding[i + missing] = conv->padding[i];
      shape->stride[i + missing] = conv->stride[i];
      shape->dilation[i + missing] = conv->dilation[i];
    }
    shape->groups = groups;
    shape->flip_filter = conv->mode == CUDNN_CONVOLUTION;
    shape->data_type = x->data_type;
  }
  return CUDNN_STATUS_SUCCESS;
}

// y = alpha * conv(x, w) + beta * y, one output element at a time.
template <typename T>
CUDNN_INTERNAL void convolution_forward(const ConvolutionShape& s, double alpha, const T* x,
                                        const T* w, double beta, T* y) {
  const long long batch = s.y.size[0];
  const long long out_channels = s.y.size[1];
  const long long group_out = out_channels / s.groups;
  const long long group_in = s.w.size[1];
  const long long kd = s.w.size[2];
  const long long kh = s.w.size[3];
  const long long kw = s.w.size[4];
  for (long long n = 0; n < batch; ++n) {
    for (long long k = 0; k < out_channels; ++k) {
      const long long first_in = (k / group_out) * group_in;
      for (long long od = 0; od < s.y.size[2]; ++od) {
        for (long long oh = 0; oh < s.y.size[3]; ++oh) {
          for (long long ow = 0; ow < s.y.size[4]; ++ow) {
            double sum = 0.0;
            for (long long c = 0; c < group_in; ++c) {
              for (long long fd = 0; fd < kd; ++fd) {
                const long long id = od * s.stride[0] - s.padding[0] + fd * s.dilation[0];
                if (id < 0 || id >= s.x.size[2]) continue;
                for (long long fh = 0; fh < kh; ++fh) {
                  const long long ih = oh * s.stride[1] - s.padding[1] + fh * s.dilation[1];
                  if (ih < 0 || ih >= s.x.size[3]) continue;
                  for (long long fw = 0; fw < kw; ++fw) {
                    const long long iw = ow * s.stride[2] - s.padding[2] + fw * s.dilation[2];
                    if (iw < 0 || iw >= s.x.size[4]) continue;
                    const long long wd = s.flip_filter ? kd - 1 - fd : fd;
                    const long long wh = s.flip_filter ? kh - 1 - fh : fh;
                    const long long ww = s.flip_filter ? kw - 1 - fw : fw;
                    const T xv = x[offset5(s.x, n, first_in + c, id, ih, iw)];
                    const T wv = w[offset5(s.w, k, c, wd, wh, ww)];
                    sum += static_cast<double>(xv) * static_cast<double>(wv);
                  }
                }
              }
            }
            T& out = y[offset5(s.y, n, k, od, oh, ow)];
            // beta == 0 makes y output-only: stale NaNs must not survive.
            const double previous = beta == 0.0 ? 0.0 : beta * static_cast<double>(out);
            out = static_cast<T>(alpha * sum + previous);
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Batch normalization.

struct BatchNormShape {
  Layout5 x;
  Layout5 y;
  Layout5 param;
  bool per_activation;  // statistics per (channel, position) instead of per channel
  cudnnDataType_t data_type;
};

CUDNN_INTERNAL bool is_valid_bn_mode(cudnnBatchNormMode_t mode) {
  return mode == CUDNN_BATCHNORM_PER_ACTIVATION || mode == CUDNN_BATCHNORM_SPATIAL ||
         mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
}

CUDNN_INTERNAL cudnnStatus_t batch_norm_shape(cudnnBatchNormMode_t mode,
                                              const cudnnTensorStruct* x,
                                              const cudnnTensorStruct* y,
                                              const cudnnTensorStruct* param, double epsilon,
                                              BatchNormShape* shape) {
  if (!is_valid_bn_mode(mode)) return CUDNN_STATUS_BAD_PARAM;
  if (x == nullptr || y == nullptr || param == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (!x->is_set || !y->is_set || !param->is_set) return CUDNN_STATUS_BAD_PARAM;
  const int nb = x->nb_dims;
  if (nb < 4 || nb > 5 || y->nb_dims != nb || param->nb_dims != nb) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (!(epsilon >= CUDNN_BN_MIN_EPSILON)) return CUDNN_STATUS_BAD_PARAM;
  if (y->data_type != x->data_type || param->data_type != x->data_type) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (!is_computable_type(x->data_type)) return CUDNN_STATUS_NOT_SUPPORTED;
  const bool per_activation = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
  if (param->dims[0] != 1 || param->dims[1] != x->dims[1]) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < nb; ++i) {
    if (y->dims[i] != x->dims[i]) return CUDNN_STATUS_BAD_PARAM;
    if (i >= 2 && param->dims[i] != (per_activation ? x->dims[i] : 1)) {
      return CUDNN_STATUS_BAD_PARAM;
    }
  }
  if (!tensor_layout(x, &shape->x) || !tensor_layout(y, &shape->y) ||
      !tensor_layout(param, &shape->param)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  shape->per_activation = per_activation;
  shape->data_type = x->data_type;
  return CUDNN_STATUS_SUCCESS;
}

// Visits the elements normalized together: every (n, d, h, w) of channel c
// (spatial), or every n at one (c, d, h, w) (per activation).
struct FeatureRange {
  long long d_begin, d_end, h_begin, h_end, w_begin, w_end;
};

CUDNN_INTERNAL long long feature_count(const BatchNormShape& s) {
  const Layout5& x = s.x;
  return s.per_activation ? x.size[1] * x.size[2] * x.size[3] * x.size[4] : x.size[1];
}

// Channel and spatial range of feature f; sets `param_offset` to where its
// scale / bias / mean / variance live.
CUDNN_INTERNAL long long feature_range(const BatchNormShape& s, long long f, FeatureRange* r,
                                       long long* param_offset) {
  const Layout5& x = s.x;
  if (!s.per_activation) {
    *r = FeatureRange{0, x.size[2], 0, x.size[3], 0, x.size[4]};
    *param_offset = f * s.param.stride[1];
    return f;
  }
  const long long w = f % x.size[4];
  const long long h = (f / x.size[4]) % x.size[3];
  const long long d = (f / (x.size[4] * x.size[3])) % x.size[2];
  const long long c = f / (x.size[4] * x.size[3] * x.size[2]);
  *r = FeatureRange{d, d + 1, h, h + 1, w, w + 1};
  *param_offset = offset5(s.param, 0, c, d, h, w);
  return c;
}

template <typename T>
CUDNN_INTERNAL void batch_norm_training(const BatchNormShape& s, double alpha, double beta,
                                        const T* x, T* y, const T* scale, const T* bias,
                                        double average_factor, T* running_mean,
                                        T* running_variance, double epsilon, T* save_mean,
                                        T* save_inv_std) {
  const long long batch = s.x.size[0];
  const long long features = feature_count(s);
  for (long long f = 0; f < features; ++f) {
    FeatureRange r;
    long long p = 0;
    const long long c = feature_range(s, f, &r, &p);
    const long long count =
        batch * (r.d_end - r.d_begin) * (r.h_end - r.h_begin) * (r.w_end - r.w_begin);
    // Two passes: the mean first, then squared deviations from it, which
    // stays accurate where E[x^2] - E[x]^2 would cancel.
    double sum = 0.0;
    for (long long n = 0; n < batch; ++n)
      for (long long d = r.d_begin; d < r.d_end; ++d)
        for (long long h = r.h_begin; h < r.h_end; ++h)
          for (long long w = r.w_begin; w < r.w_end; ++w)
            sum += static_cast<double>(x[offset5(s.x, n, c, d, h, w)]);
    const double mean = sum / static_cast<double>(count);
    double squares = 0.0;
    for (long long n = 0; n < batch; ++n)
      for (long long d = r.d_begin; d < r.d_end; ++d)
        for (long long h = r.h_begin; h < r.h_end; ++h)
          for (long long w = r.w_begin; w < r.w_end; ++w) {
            const double centered = static_cast<double>(x[offset5(s.x, n, c, d, h, w)]) - mean;
            squares += centered * centered;
          }
    // Normalization uses the biased (population) variance ...
    const double variance = squares / static_cast<double>(count);
    const double inv_std = 1.0 / sqrt(variance + epsilon);
    const double gamma = static_cast<double>(scale[p]);
    const double shift = static_cast<double>(bias[p]);
    for (long long n = 0; n < batch; ++n)
      for (long long d = r.d_begin; d < r.d_end; ++d)
        for (long long h = r.h_begin; h < r.h_end; ++h)
          for (long long w = r.w_begin; w < r.w_end; ++w) {
            const double normalized =
                (static_cast<double>(x[offset5(s.x, n, c, d, h, w)]) - mean) * inv_std;
            T& out = y[offset5(s.y, n, c, d, h, w)];
            const double previous = beta == 0.0 ? 0.0 : beta * static_cast<double>(out);
            out = static_cast<T>(alpha * (gamma * normalized + shift) + previous);
          }
    // ... while the running estimate takes the unbiased one.
    if (running_mean != nullptr) {
      const double unbiased =
          count > 1 ? squares / static_cast<double>(count - 1) : variance;
      running_mean[p] = static_cast<T>((1.0 - average_factor) * running_mean[p] +
                                       average_factor * mean);
      running_variance[p] = static_cast<T>((1.0 - average_factor) * running_variance[p] +
                                           average_factor * unbiased);
    }
    if (save_mean != nullptr) {
      save_mean[p] = static_cast<T>(mean);
      save_inv_std[p] = static_cast<T>(inv_std);
    }
  }
}

template <typename T>
CUDNN_INTERNAL void batch_norm_inference(const BatchNormShape& s, double alpha, double beta,
                                         const T* x, T* y, const T* scale, const T* bias,
                                         const T* mean, const T* variance, double epsilon) {
  const long long batch = s.x.size[0];
  const long long features = feature_count(s);
  for (long long f = 0; f < features; ++f) {
    FeatureRange r;
    long long p = 0;
    const long long c = feature_range(s, f, &r, &p);
    const double inv_std = 1.0 / sqrt(static_cast<double>(variance[p]) + epsilon);
    const double center = static_cast<double>(mean[p]);
    const double gamma = static_cast<double>(scale[p]);
    const double shift = static_cast<double>(bias[p]);
    for (long long n = 0; n < batch; ++n)
      for (long long d = r.d_begin; d < r.d_end; ++d)
        for (long long h = r.h_begin; h < r.h_end; ++h)
          for (long long w = r.w_begin; w < r.w_end; ++w) {
            const double normalized =
                (static_cast<double>(x[offset5(s.x, n, c, d, h, w)]) - center) * inv_std;
            T& out = y[offset5(s.y, n, c, d, h, w)];
            const double previous = beta == 0.0 ? 0.0 : beta * static_cast<double>(out);
            out = static_cast<T>(alpha * (gamma * normalized + shift) + previous);
          }
  }
}

// ---------------------------------------------------------------------------
// Dropout: SplitMix64 finalizer over (seed, counter), top 53 bits as [0, 1).
CUDNN_INTERNAL double uniform_draw(uint64_t seed, uint64_t counter) {
  uint64_t z = seed ^ (counter * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

// ---------------------------------------------------------------------------
// Recurrent networks.
//
// Weight space layout (this implementation's; callers size it with
// cudnnGetRNNWeightSpaceSize): for each layer, for each direction,
//   W_ih [gates * hidden, layer input], W_hh [gates * hidden, hidden],
//   then the biases the bias mode has: b_ih [gates * hidden], b_hh [...].
// Gates in PyTorch's order: LSTM i, f, g, o; GRU r, z, n.

CUDNN_INTERNAL int gate_count(cudnnRNNMode_t mode) {
  return mode == CUDNN_LSTM ? 4 : (mode == CUDNN_GRU ? 3 : 1);
}

CUDNN_INTERNAL int direction_count(const cudnnRNNStruct* rnn) {
  return rnn->direction_mode == CUDNN_BIDIRECTIONAL ? 2 : 1;
}

CUDNN_INTERNAL bool has_input_bias(const cudnnRNNStruct* rnn) {
  return rnn->bias_mode == CUDNN_RNN_DOUBLE_BIAS || rnn->bias_mode == CUDNN_RNN_SINGLE_INP_BIAS;
}

CUDNN_INTERNAL bool has_recurrent_bias(const cudnnRNNStruct* rnn) {
  return rnn->bias_mode == CUDNN_RNN_DOUBLE_BIAS || rnn->bias_mode == CUDNN_RNN_SINGLE_REC_BIAS;
}

CUDNN_INTERNAL long long layer_input_size(const cudnnRNNStruct* rnn, int layer) {
  return layer == 0 ? rnn->input_size
                    : static_cast<long long>(rnn->hidden_size) * direction_count(rnn);
}

// Elements of one (layer, direction) block of the weight space.
CUDNN_INTERNAL long long cell_weight_count(const cudnnRNNStruct* rnn, int layer) {
  const long long rows = static_cast<long long>(gate_count(rnn->cell_mode)) * rnn->hidden_size;
  long long count = rows * layer_input_size(rnn, layer) + rows * rnn->hidden_size;
  if (has_input_bias(rnn)) count += rows;
  if (has_recurrent_bias(rnn)) count += rows;
  return count;
}

CUDNN_INTERNAL long long weight_count(const cudnnRNNStruct* rnn) {
  long long total = 0;
  for (int layer = 0; layer < rnn->layer_count; ++layer) {
    total += cell_weight_count(rnn, layer) * direction_count(rnn);
  }
  return total;
}

CUDNN_INTERNAL size_t element_bytes(cudnnDataType_t type) {
  return type == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
}

// Workspace: two layer-output buffers [time][batch][directions * hidden]
// and the running h and c of one direction, all in the data type, then one
// step's gate pre-activations in double.
CUDNN_INTERNAL size_t workspace_value_bytes(const cudnnRNNStruct* rnn, long long max_length,
                                            long long batch) {
  const long long hidden = rnn->hidden_size;
  const long long values =
      2 * max_length * batch * direction_count(rnn) * hidden + 2 * batch * hidden;
  const size_t bytes = static_cast<size_t>(values) * element_bytes(rnn->data_type);
  return (bytes + sizeof(double) - 1) / sizeof(double) * sizeof(double);
}

CUDNN_INTERNAL size_t workspace_bytes(const cudnnRNNStruct* rnn, long long max_length,
                                      long long batch) {
  const long long gates = static_cast<long long>(gate_count(rnn->cell_mode)) * rnn->hidden_size;
  return workspace_value_bytes(rnn, max_length, batch) +
         static_cast<size_t>(2 * gates) * sizeof(double);
}

// Reserve (training only): every step's activated gates, which is what a
// backward pass reads.
CUDNN_INTERNAL long long reserve_count(const cudnnRNNStruct* rnn, long long max_length,
                                       long long batch) {
  return static_cast<long long>(rnn->layer_count) * direction_count(rnn) * max_length * batch *
         gate_count(rnn->cell_mode) * rnn->hidden_size;
}

// Offset of the vector (t, b) in RNN data of the descriptor's layout.
CUDNN_INTERNAL long long sequence_offset(const cudnnRNNDataStruct* desc, long long t,
                                         long long b) {
  const long long vector = desc->vector_size;
  switch (desc->layout) {
    case CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED:
      return (b * desc->max_sequence_length + t) * vector;
    case CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED: {
      // Step t holds the sequences longer than t, longest first.
      long long before = 0;
      for (long long step = 0; step < t; ++step) {
        for (int i = 0; i < desc->batch_size; ++i) before += desc->sequence_lengths[i] > step;
      }
      return (before + b) * vector;
    }
    case CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED:
      break;
  }
  return (t * desc->batch_size + b) * vector;
}

CUDNN_INTERNAL double sigmoid(double v) { return 1.0 / (1.0 + exp(-v)); }

template <typename T>
struct RnnBuffers {
  const T* x;
  T* y;
  const T* hx;
  T* hy;
  const T* cx;
  T* cy;
  const T* weights;
  T* workspace;
  T* reserve;  // null in inference
  Layout5 h_layout;
  Layout5 c_layout;
};

// W [rows, columns] (row-major) times v, accumulated into out[rows].
template <typename T>
CUDNN_INTERNAL void add_matrix_vector(const T* matrix, long long rows, long long columns,
                                      const T* vector, double* out) {
  for (long long r = 0; r < rows; ++r) {
    double sum = 0.0;
    const T* row = matrix + r * columns;
    for (long long c = 0; c < columns; ++c) {
      sum += static_cast<double>(row[c]) * static_cast<double>(vector[c]);
    }
    out[r] += sum;
  }
}

template <typename T>
CUDNN_INTERNAL void rnn_forward(const cudnnRNNStruct* rnn, const cudnnRNNDataStruct* x_desc,
                                const cudnnRNNDataStruct* y_desc, bool training,
                                const RnnBuffers<T>& io) {
  const int layers = rnn->layer_count;
  const int directions = direction_count(rnn);
  const long long hidden = rnn->hidden_size;
  const long long gates = gate_count(rnn->cell_mode) * hidden;
  const long long batch = x_desc->batch_size;
  const long long max_length = x_desc->max_sequence_length;
  const long long layer_width = directions * hidden;
  const int* lengths = x_desc->sequence_lengths;

  T* layer_output[2] = {io.workspace, io.workspace + max_length * batch * layer_width};
  T* h = layer_output[1] + max_length * batch * layer_width;
  T* c = h + batch * hidden;
  // Gate pre-activations of one (t, b), input and recurrent parts apart
  // because GRU scales only the recurrent part of its candidate gate.
  double* const from_input = reinterpret_cast<double*>(
      reinterpret_cast<char*>(io.workspace) + workspace_value_bytes(rnn, max_length, batch));
  double* const from_hidden = from_input + gates;

  const cudnnDropoutStruct* dropout = rnn->dropout;
  DropoutGeneratorState* generator =
      dropout != nullptr && dropout->is_set && dropout->states != nullptr
          ? static_cast<DropoutGeneratorState*>(dropout->states)
          : nullptr;
  const double drop_probability = dropout != nullptr ? dropout->probability : 0.0;

  const T* weights = io.weights;
  for (int layer = 0; layer < layers; ++layer) {
    const long long in_size = layer_input_size(rnn, layer);
    const T* previous = layer == 0 ? nullptr : layer_output[(layer - 1) % 2];
    T* output = layer_output[layer % 2];
    for (int direction = 0; direction < directions; ++direction) {
      const T* w_ih = weights;
      const T* w_hh = w_ih + gates * in_size;
      const T* b_ih = has_input_bias(rnn) ? w_hh + gates * hidden : nullptr;
      const T* b_hh = has_recurrent_bias(rnn)
                          ? w_hh + gates * hidden + (b_ih != nullptr ? gates : 0)
                          : nullptr;
      weights += cell_weight_count(rnn, layer);
      const long long state = static_cast<long long>(layer) * directions + direction;

      for (long long b = 0; b < batch; ++b) {
        for (long long j = 0; j < hidden; ++j) {
          h[b * hidden + j] = io.hx != nullptr
                                  ? io.hx[offset5(io.h_layout, state, b, 0, 0, j)]
                                  : T(0);
          c[b * hidden + j] = io.cx != nullptr
                                  ? io.cx[offset5(io.c_layout, state, b, 0, 0, j)]
                                  : T(0);
        }
      }
      for (long long b = 0; b < batch; ++b) {
        const long long length = lengths[b];
        for (long long step = 0; step < length; ++step) {
          const long long t = direction == 0 ? step : length - 1 - step;
          const T* input = layer == 0 ? io.x + sequence_offset(x_desc, t, b)
                                      : previous + (t * batch + b) * layer_width;
          T* h_b = h + b * hidden;
          T* c_b = c + b * hidden;
          for (long long g = 0; g < gates; ++g) {
            from_input[g] = b_ih != nullptr ? static_cast<double>(b_ih[g]) : 0.0;
            from_hidden[g] = b_hh != nullptr ? static_cast<double>(b_hh[g]) : 0.0;
          }
          add_matrix_vector(w_ih, gates, in_size, input, from_input);
          add_matrix_vector(w_hh, gates, hidden, h_b, from_hidden);
          T* saved = io.reserve != nullptr
                         ? io.reserve + ((state * max_length + t) * batch + b) * gates
                         : nullptr;
          for (long long j = 0; j < hidden; ++j) {
            double next_h = 0.0;
            switch (rnn->cell_mode) {
              case CUDNN_RNN_RELU: {
                const double v = from_input[j] + from_hidden[j];
                next_h = v > 0.0 ? v : 0.0;
                if (saved != nullptr) saved[j] = static_cast<T>(next_h);
                break;
              }
              case CUDNN_RNN_TANH: {
                next_h = tanh(from_input[j] + from_hidden[j]);
                if (saved != nullptr) saved[j] = static_cast<T>(next_h);
                break;
              }
              case CUDNN_LSTM: {
                const double i = sigmoid(from_input[j] + from_hidden[j]);
                const double f = sigmoid(from_input[hidden + j] + from_hidden[hidden + j]);
                const double g = tanh(from_input[2 * hidden + j] + from_hidden[2 * hidden + j]);
                const double o = sigmoid(from_input[3 * hidden + j] + from_hidden[3 * hidden + j]);
                const double next_c = f * static_cast<double>(c_b[j]) + i * g;
                c_b[j] = static_cast<T>(next_c);
                next_h = o * tanh(next_c);
                if (saved != nullptr) {
                  saved[j] = static_cast<T>(i);
                  saved[hidden + j] = static_cast<T>(f);
                  saved[2 * hidden + j] = static_cast<T>(g);
                  saved[3 * hidden + j] = static_cast<T>(o);
                }
                break;
              }
              case CUDNN_GRU: {
                const double r = sigmoid(from_input[j] + from_hidden[j]);
                const double z = sigmoid(from_input[hidden + j] + from_hidden[hidden + j]);
                const double n = tanh(from_input[2 * hidden + j] + r * from_hidden[2 * hidden + j]);
                next_h = (1.0 - z) * n + z * static_cast<double>(h_b[j]);
                if (saved != nullptr) {
                  saved[j] = static_cast<T>(r);
                  saved[hidden + j] = static_cast<T>(z);
                  saved[2 * hidden + j] = static_cast<T>(n);
                }
                break;
              }
            }
            // Every gate of this step has read h_b already.
            output[(t * batch + b) * layer_width + direction * hidden + j] =
                static_cast<T>(next_h);
          }
          for (long long j = 0; j < hidden; ++j) {
            h_b[j] = output[(t * batch + b) * layer_width + direction * hidden + j];
          }
        }
      }
      for (long long b = 0; b < batch; ++b) {
        for (long long j = 0; j < hidden; ++j) {
          if (io.hy != nullptr) io.hy[offset5(io.h_layout, state, b, 0, 0, j)] = h[b * hidden + j];
          if (io.cy != nullptr && rnn->cell_mode == CUDNN_LSTM) {
            io.cy[offset5(io.c_layout, state, b, 0, 0, j)] = c[b * hidden + j];
          }
        }
      }
    }
    // Dropout sits between layers, in training only.
    if (training && layer + 1 < layers && generator != nullptr && drop_probability > 0.0) {
      const double keep_scale = drop_probability < 1.0 ? 1.0 / (1.0 - drop_probability) : 0.0;
      const uint64_t first = generator->offset;
      for (long long b = 0; b < batch; ++b) {
        for (long long t = 0; t < lengths[b]; ++t) {
          for (long long j = 0; j < layer_width; ++j) {
            const long long index = (t * batch + b) * layer_width + j;
            const bool keep = uniform_draw(generator->seed, first + static_cast<uint64_t>(index)) >=
                              drop_probability;
            output[index] = keep ? static_cast<T>(static_cast<double>(output[index]) * keep_scale)
                                 : T(0);
          }
        }
      }
      generator->offset = first + static_cast<uint64_t>(max_length * batch * layer_width);
    }
  }

  const T* last = layer_output[(layers - 1) % 2];
  for (long long b = 0; b < batch; ++b) {
    for (long long t = 0; t < max_length; ++t) {
      if (t >= lengths[b]) {
        if (y_desc->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) break;  // no slot
        if (!y_desc->has_padding_fill) continue;
        T* out = io.y + sequence_offset(y_desc, t, b);
        for (long long j = 0; j < layer_width; ++j) out[j] = static_cast<T>(y_desc->padding_fill);
        continue;
      }
      T* out = io.y + sequence_offset(y_desc, t, b);
      const T* in = last + (t * batch + b) * layer_width;
      for (long long j = 0; j < layer_width; ++j) out[j] = in[j];
    }
  }
}

CUDNN_INTERNAL bool same_lengths(const cudnnRNNDataStruct* a, const cudnnRNNDataStruct* b) {
  for (int i = 0; i < a->batch_size; ++i) {
    if (a->sequence_lengths[i] != b->sequence_lengths[i]) return false;
  }
  return true;
}

// hDesc / cDesc must be [layers * directions, batch, hidden].
CUDNN_INTERNAL bool is_state_descriptor(const cudnnTensorStruct* desc, const cudnnRNNStruct* rnn,
                                        int batch) {
  return desc != nullptr && desc->is_set && desc->nb_dims == 3 &&
         desc->data_type == rnn->data_type &&
         desc->dims[0] == rnn->layer_count * direction_count(rnn) && desc->dims[1] == batch &&
         desc->dims[2] == rnn->hidden_size;
}

// Sees a [states, batch, hidden] tensor through Layout5 as (n, c, -, -, w).
CUDNN_INTERNAL Layout5 state_layout(const cudnnTensorStruct* desc) {
  Layout5 layout;
  for (int i = 0; i < 5; ++i) {
    layout.size[i] = 1;
    layout.stride[i] = 0;
  }
  layout.size[0] = desc->dims[0];
  layout.stride[0] = desc->strides[0];
  layout.size[1] = desc->dims[1];
  layout.stride[1] = desc->strides[1];
  layout.size[4] = desc->dims[2];
  layout.stride[4] = desc->strides[2];
  return layout;
}

}  // namespace

extern "C" {

// ===========================================================================
// Library handle and errors.

size_t cudnnGetVersion(void) { return CUDNN_VERSION; }

const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS:
      return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED:
      return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_ALLOC_FAILED:
      return "CUDNN_STATUS_ALLOC_FAILED";
    case CUDNN_STATUS_BAD_PARAM:
      return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_INTERNAL_ERROR:
      return "CUDNN_STATUS_INTERNAL_ERROR";
    case CUDNN_STATUS_INVALID_VALUE:
      return "CUDNN_STATUS_INVALID_VALUE";
    case CUDNN_STATUS_ARCH_MISMATCH:
      return "CUDNN_STATUS_ARCH_MISMATCH";
    case CUDNN_STATUS_EXECUTION_FAILED:
      return "CUDNN_STATUS_EXECUTION_FAILED";
    case CUDNN_STATUS_NOT_SUPPORTED:
      return "CUDNN_STATUS_NOT_SUPPORTED";
  }
  return "CUDNN_UNKNOWN_STATUS_FOUND";
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) { return create_zeroed(handle); }

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  if (handle == nullptr) return CUDNN_STATUS_BAD_PARAM;
  free(handle);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  if (handle == nullptr) return CUDNN_STATUS_BAD_PARAM;
  handle->stream = streamId;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t* streamId) {
  if (handle == nullptr || streamId == nullptr) return CUDNN_STATUS_BAD_PARAM;
  *streamId = handle->stream;
  return CUDNN_STATUS_SUCCESS;
}

// ===========================================================================
// Tensor descriptors.

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc) {
  return create_zeroed(tensorDesc);
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
  free(tensorDesc);  // destroying a null descriptor is a no-op
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                         cudnnDataType_t dataType, int nbDims, const int dimA[],
                                         const int strideA[]) {
  if (tensorDesc == nullptr || dimA == nullptr || strideA == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (nbDims > CUDNN_DIM_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nbDims < 3 || !is_known_type(dataType)) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < nbDims; ++i) {
    if (dimA[i] <= 0 || strideA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  tensorDesc->data_type = dataType;
  tensorDesc->nb_dims = nbDims;
  for (int i = 0; i < nbDims; ++i) {
    tensorDesc->dims[i] = dimA[i];
    tensorDesc->strides[i] = strideA[i];
  }
  tensorDesc->is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                         int nbDimsRequested, cudnnDataType_t* dataType,
                                         int* nbDims, int dimA[], int strideA[]) {
  if (tensorDesc == nullptr || !tensorDesc->is_set || nbDimsRequested < 0 ||
      dataType == nullptr || nbDims == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (nbDimsRequested > 0 && (dimA == nullptr || strideA == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  *dataType = tensorDesc->data_type;
  *nbDims = tensorDesc->nb_dims;
  for (int i = 0; i < nbDimsRequested && i < tensorDesc->nb_dims; ++i) {
    dimA[i] = tensorDesc->dims[i];
    strideA[i] = tensorDesc->strides[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

// ===========================================================================
// Filter descriptors.

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc) {
  return create_zeroed(filterDesc);
}

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
  free(filterDesc);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc,
                                         cudnnDataType_t dataType, cudnnTensorFormat_t format,
                                         int nbDims, const int filterDimA[]) {
  if (filterDesc == nullptr || filterDimA == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (nbDims > CUDNN_DIM_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nbDims < 3 || !is_known_type(dataType)) return CUDNN_STATUS_BAD_PARAM;
  if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < nbDims; ++i) {
    if (filterDimA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  filterDesc->data_type = dataType;
  filterDesc->format = format;
  filterDesc->nb_dims = nbDims;
  for (int i = 0; i < nbDims; ++i) filterDesc->dims[i] = filterDimA[i];
  filterDesc->is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

// ===========================================================================
// Convolution.

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc) {
  const cudnnStatus_t status = create_zeroed(convDesc);
  if (status == CUDNN_STATUS_SUCCESS) {
    (*convDesc)->group_count = 1;
    (*convDesc)->math_type = CUDNN_DEFAULT_MATH;
  }
  return status;
}

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
  free(convDesc);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                              int arrayLength, const int padA[],
                                              const int filterStrideA[], const int dilationA[],
                                              cudnnConvolutionMode_t mode,
                                              cudnnDataType_t computeType) {
  if (convDesc == nullptr || padA == nullptr || filterStrideA == nullptr ||
      dilationA == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (arrayLength > CUDNN_DIM_MAX - 2) return CUDNN_STATUS_NOT_SUPPORTED;
  if (arrayLength < 1 || !is_known_type(computeType)) return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < arrayLength; ++i) {
    if (padA[i] < 0 || filterStrideA[i] <= 0 || dilationA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  convDesc->spatial_dims = arrayLength;
  for (int i = 0; i < arrayLength; ++i) {
    convDesc->padding[i] = padA[i];
    convDesc->stride[i] = filterStrideA[i];
    convDesc->dilation[i] = dilationA[i];
  }
  convDesc->mode = mode;
  convDesc->compute_type = computeType;
  convDesc->is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc,
                                            int groupCount) {
  if (convDesc == nullptr || groupCount < 1) return CUDNN_STATUS_BAD_PARAM;
  convDesc->group_count = groupCount;
  return CUDNN_STATUS_SUCCESS;
}

// Tensor-op math permits, but does not oblige, reduced precision; this
// implementation always computes at full precision.
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                          cudnnMathType_t mathType) {
  if (convDesc == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (mathType != CUDNN_DEFAULT_MATH && mathType != CUDNN_TENSOR_OP_MATH &&
      mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION && mathType != CUDNN_FMA_MATH) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  convDesc->math_type = mathType;
  return CUDNN_STATUS_SUCCESS;
}

// Every algorithm computes the same direct convolution here, so the
// heuristic offers one: implicit GEMM, which needs no workspace.
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
    const cudnnFilterDescriptor_t filterDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  if (handle == nullptr || returnedAlgoCount == nullptr || perfResults == nullptr ||
      requestedAlgoCount < 1) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const cudnnStatus_t status =
      convolution_shape(srcDesc, filterDesc, convDesc, destDesc, nullptr, nullptr);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  cudnnConvolutionFwdAlgoPerf_t& perf = perfResults[0];
  memset(&perf, 0, sizeof(perf));
  perf.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  perf.status = CUDNN_STATUS_SUCCESS;
  perf.time = -1.0f;  // heuristics do not time anything
  perf.memory = 0;
  perf.determinism = CUDNN_DETERMINISTIC;
  perf.mathType = convDesc->math_type;
  *returnedAlgoCount = 1;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  if (handle == nullptr || sizeInBytes == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (algo < CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const cudnnStatus_t status = convolution_shape(xDesc, wDesc, convDesc, yDesc, nullptr, nullptr);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  *sizeInBytes = 0;  // the direct computation works in place
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                      const cudnnTensorDescriptor_t xDesc, const void* x,
                                      const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                      size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  (void)workSpace;
  (void)workSpaceSizeInBytes;  // every algorithm needs 0 bytes
  if (handle == nullptr || alpha == nullptr || beta == nullptr || x == nullptr ||
      w == nullptr || y == nullptr || yDesc == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (algo < CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  ConvolutionShape shape;
  const cudnnStatus_t status = convolution_shape(xDesc, wDesc, convDesc, yDesc, nullptr, &shape);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  const double a = read_scale(alpha, shape.data_type);
  const double b = read_scale(beta, shape.data_type);
  if (shape.data_type == CUDNN_DATA_DOUBLE) {
    convolution_forward(shape, a, static_cast<const double*>(x), static_cast<const double*>(w),
                        b, static_cast<double*>(y));
  } else {
    convolution_forward(shape, a, static_cast<const float*>(x), static_cast<const float*>(w), b,
                        static_cast<float*>(y));
  }
  return CUDNN_STATUS_SUCCESS;
}

// ===========================================================================
// Batch normalization.

cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc,
                                            const cudnnTensorDescriptor_t xDesc,
                                            cudnnBatchNormMode_t mode) {
  if (derivedBnDesc == nullptr || xDesc == nullptr || !xDesc->is_set || !is_valid_bn_mode(mode)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const int nb = xDesc->nb_dims;
  if (nb < 4 || nb > 5) return CUDNN_STATUS_BAD_PARAM;
  int dims[CUDNN_DIM_MAX];
  int strides[CUDNN_DIM_MAX];
  dims[0] = 1;
  dims[1] = xDesc->dims[1];
  for (int i = 2; i < nb; ++i) {
    dims[i] = mode == CUDNN_BATCHNORM_PER_ACTIVATION ? xDesc->dims[i] : 1;
  }
  int running = 1;
  for (int i = nb - 1; i >= 0; --i) {
    strides[i] = running;
    running *= dims[i];
  }
  // Half and bfloat16 data keep their parameters in float.
  const cudnnDataType_t type =
      xDesc->data_type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  return cudnnSetTensorNdDescriptor(derivedBnDesc, type, nb, dims, strides);
}

cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc,
    void* y, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale,
    const void* bnBias, double exponentialAverageFactor, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean,
    void* resultSaveInvVariance) {
  if (handle == nullptr || alpha == nullptr || beta == nullptr || x == nullptr ||
      y == nullptr || bnScale == nullptr || bnBias == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  // Each pair is all-or-nothing.
  if ((resultRunningMean == nullptr) != (resultRunningVariance == nullptr) ||
      (resultSaveMean == nullptr) != (resultSaveInvVariance == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  BatchNormShape shape;
  const cudnnStatus_t status =
      batch_norm_shape(mode, xDesc, yDesc, bnScaleBiasMeanVarDesc, epsilon, &shape);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  const double a = read_scale(alpha, shape.data_type);
  const double b = read_scale(beta, shape.data_type);
  if (shape.data_type == CUDNN_DATA_DOUBLE) {
    batch_norm_training(shape, a, b, static_cast<const double*>(x), static_cast<double*>(y),
                        static_cast<const double*>(bnScale), static_cast<const double*>(bnBias),
                        exponentialAverageFactor, static_cast<double*>(resultRunningMean),
                        static_cast<double*>(resultRunningVariance), epsilon,
                        static_cast<double*>(resultSaveMean),
                        static_cast<double*>(resultSaveInvVariance));
  } else {
    batch_norm_training(shape, a, b, static_cast<const float*>(x), static_cast<float*>(y),
                        static_cast<const float*>(bnScale), static_cast<const float*>(bnBias),
                        exponentialAverageFactor, static_cast<float*>(resultRunningMean),
                        static_cast<float*>(resultRunningVariance), epsilon,
                        static_cast<float*>(resultSaveMean),
                        static_cast<float*>(resultSaveInvVariance));
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc,
    void* y, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale,
    const void* bnBias, const void* estimatedMean, const void* estimatedVariance,
    double epsilon) {
  if (handle == nullptr || alpha == nullptr || beta == nullptr || x == nullptr ||
      y == nullptr || bnScale == nullptr || bnBias == nullptr || estimatedMean == nullptr ||
      estimatedVariance == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  BatchNormShape shape;
  const cudnnStatus_t status =
      batch_norm_shape(mode, xDesc, yDesc, bnScaleBiasMeanVarDesc, epsilon, &shape);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  const double a = read_scale(alpha, shape.data_type);
  const double b = read_scale(beta, shape.data_type);
  if (shape.data_type == CUDNN_DATA_DOUBLE) {
    batch_norm_inference(shape, a, b, static_cast<const double*>(x), static_cast<double*>(y),
                         static_cast<const double*>(bnScale), static_cast<const double*>(bnBias),
                         static_cast<const double*>(estimatedMean),
                         static_cast<const double*>(estimatedVariance), epsilon);
  } else {
    batch_norm_inference(shape, a, b, static_cast<const float*>(x), static_cast<float*>(y),
                         static_cast<const float*>(bnScale), static_cast<const float*>(bnBias),
                         static_cast<const float*>(estimatedMean),
                         static_cast<const float*>(estimatedVariance), epsilon);
  }
  return CUDNN_STATUS_SUCCESS;
}

// ===========================================================================
// Dropout.

cudnnStatus_t cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t* dropoutDesc) {
  return create_zeroed(dropoutDesc);
}

cudnnStatus_t cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc) {
  free(dropoutDesc);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t* sizeInBytes) {
  if (handle == nullptr || sizeInBytes == nullptr) return CUDNN_STATUS_BAD_PARAM;
  *sizeInBytes = sizeof(DropoutGeneratorState);
  return CUDNN_STATUS_SUCCESS;
}

// Seeds the generator in `states` (device memory the caller keeps alive);
// with dropout 0 no states are needed.
cudnnStatus_t cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc,
                                        cudnnHandle_t handle, float dropout, void* states,
                                        size_t stateSizeInBytes, unsigned long long seed) {
  if (dropoutDesc == nullptr || handle == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (!(dropout >= 0.0f && dropout <= 1.0f)) return CUDNN_STATUS_BAD_PARAM;
  if (states == nullptr && dropout > 0.0f) return CUDNN_STATUS_BAD_PARAM;
  if (states != nullptr && stateSizeInBytes < sizeof(DropoutGeneratorState)) {
    return CUDNN_STATUS_INVALID_VALUE;
  }
  if (states != nullptr) {
    DropoutGeneratorState* generator = static_cast<DropoutGeneratorState*>(states);
    generator->seed = seed;
    generator->offset = 0;
  }
  dropoutDesc->probability = dropout;
  dropoutDesc->states = states;
  dropoutDesc->state_bytes = stateSizeInBytes;
  dropoutDesc->seed = seed;
  dropoutDesc->is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

// ===========================================================================
// Recurrent networks.

cudnnStatus_t cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t* rnnDesc) {
  return create_zeroed(rnnDesc);
}

cudnnStatus_t cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t rnnDesc) {
  free(rnnDesc);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo,
                                       cudnnRNNMode_t cellMode, cudnnRNNBiasMode_t biasMode,
                                       cudnnDirectionMode_t dirMode,
                                       cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType,
                                       cudnnDataType_t mathPrec, cudnnMathType_t mathType,
                                       int32_t inputSize, int32_t hiddenSize, int32_t projSize,
                                       int32_t numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                                       uint32_t auxFlags) {
  if (rnnDesc == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (algo != CUDNN_RNN_ALGO_STANDARD && algo != CUDNN_RNN_ALGO_PERSIST_STATIC &&
      algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (cellMode != CUDNN_RNN_RELU && cellMode != CUDNN_RNN_TANH && cellMode != CUDNN_LSTM &&
      cellMode != CUDNN_GRU) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (biasMode != CUDNN_RNN_NO_BIAS && biasMode != CUDNN_RNN_SINGLE_INP_BIAS &&
      biasMode != CUDNN_RNN_DOUBLE_BIAS && biasMode != CUDNN_RNN_SINGLE_REC_BIAS) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (dirMode != CUDNN_UNIDIRECTIONAL && dirMode != CUDNN_BIDIRECTIONAL) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (inputMode != CUDNN_LINEAR_INPUT && inputMode != CUDNN_SKIP_INPUT) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (inputSize <= 0 || hiddenSize <= 0 || numLayers <= 0 || projSize <= 0 ||
      projSize > hiddenSize) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (dropoutDesc != nullptr && !dropoutDesc->is_set) return CUDNN_STATUS_BAD_PARAM;
  if ((auxFlags & ~static_cast<uint32_t>(CUDNN_RNN_PADDED_IO_ENABLED)) != 0) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  // Outside this implementation: the skip-input first layer, LSTM output
  // projections and mixed-precision math.
  if (inputMode == CUDNN_SKIP_INPUT || projSize != hiddenSize || !is_computable_type(dataType) ||
      mathPrec != dataType) {
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
  rnnDesc->algo = algo;
  rnnDesc->cell_mode = cellMode;
  rnnDesc->bias_mode = biasMode;
  rnnDesc->direction_mode = dirMode;
  rnnDesc->input_mode = inputMode;
  rnnDesc->data_type = dataType;
  rnnDesc->math_precision = mathPrec;
  rnnDesc->math_type = mathType;
  rnnDesc->input_size = inputSize;
  rnnDesc->hidden_size = hiddenSize;
  rnnDesc->projection_size = projSize;
  rnnDesc->layer_count = numLayers;
  rnnDesc->dropout = dropoutDesc;
  rnnDesc->aux_flags = auxFlags;
  rnnDesc->is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t* rnnDataDesc) {
  return create_zeroed(rnnDataDesc);
}

cudnnStatus_t cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc) {
  if (rnnDataDesc != nullptr) free(rnnDataDesc->sequence_lengths);
  free(rnnDataDesc);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc,
                                        cudnnDataType_t dataType, cudnnRNNDataLayout_t layout,
                                        int maxSeqLength, int batchSize, int vectorSize,
                                        const int seqLengthArray[], void* paddingFill) {
  if (rnnDataDesc == nullptr || seqLengthArray == nullptr) return CUDNN_STATUS_BAD_PARAM;
  if (layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED &&
      layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED &&
      layout != CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (maxSeqLength <= 0 || batchSize <= 0 || vectorSize <= 0 || !is_known_type(dataType)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  for (int i = 0; i < batchSize; ++i) {
    if (seqLengthArray[i] < 0 || seqLengthArray[i] > maxSeqLength) return CUDNN_STATUS_BAD_PARAM;
    // Packed data is only addressable with the longest sequences first.
    if (layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && i > 0 &&
        seqLengthArray[i] > seqLengthArray[i - 1]) {
      return CUDNN_STATUS_BAD_PARAM;
    }
  }
  int* lengths = static_cast<int*>(malloc(sizeof(int) * static_cast<size_t>(batchSize)));
  if (lengths == nullptr) return CUDNN_STATUS_ALLOC_FAILED;
  memcpy(lengths, seqLengthArray, sizeof(int) * static_cast<size_t>(batchSize));
  free(rnnDataDesc->sequence_lengths);
  rnnDataDesc->sequence_lengths = lengths;
  rnnDataDesc->data_type = dataType;
  rnnDataDesc->layout = layout;
  rnnDataDesc->max_sequence_length = maxSeqLength;
  rnnDataDesc->batch_size = batchSize;
  rnnDataDesc->vector_size = vectorSize;
  rnnDataDesc->has_padding_fill = paddingFill != nullptr;
  rnnDataDesc->padding_fill =
      paddingFill == nullptr ? 0.0 : read_scale(paddingFill, dataType);
  rnnDataDesc->is_set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                         size_t* weightSpaceSize) {
  if (handle == nullptr || rnnDesc == nullptr || !rnnDesc->is_set || weightSpaceSize == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  *weightSpaceSize = static_cast<size_t>(weight_count(rnnDesc)) * element_bytes(rnnDesc->data_type);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                        cudnnForwardMode_t fwdMode,
                                        cudnnRNNDataDescriptor_t xDesc, size_t* workSpaceSize,
                                        size_t* reserveSpaceSize) {
  if (handle == nullptr || rnnDesc == nullptr || !rnnDesc->is_set || xDesc == nullptr ||
      !xDesc->is_set || workSpaceSize == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (fwdMode != CUDNN_FWD_MODE_INFERENCE && fwdMode != CUDNN_FWD_MODE_TRAINING) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const size_t bytes = element_bytes(rnnDesc->data_type);
  *workSpaceSize = workspace_bytes(rnnDesc, xDesc->max_sequence_length, xDesc->batch_size);
  if (reserveSpaceSize != nullptr) {
    *reserveSpaceSize =
        fwdMode == CUDNN_FWD_MODE_TRAINING
            ? static_cast<size_t>(
                  reserve_count(rnnDesc, xDesc->max_sequence_length, xDesc->batch_size)) *
                  bytes
            : 0;
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                              cudnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
                              cudnnRNNDataDescriptor_t xDesc, const void* x,
                              cudnnRNNDataDescriptor_t yDesc, void* y,
                              cudnnTensorDescriptor_t hDesc, const void* hx, void* hy,
                              cudnnTensorDescriptor_t cDesc, const void* cx, void* cy,
                              size_t weightSpaceSize, const void* weightSpace,
                              size_t workSpaceSize, void* workSpace, size_t reserveSpaceSize,
                              void* reserveSpace) {
  if (handle == nullptr || rnnDesc == nullptr || !rnnDesc->is_set || xDesc == nullptr ||
      !xDesc->is_set || yDesc == nullptr || !yDesc->is_set || x == nullptr || y == nullptr ||
      weightSpace == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (fwdMode != CUDNN_FWD_MODE_INFERENCE && fwdMode != CUDNN_FWD_MODE_TRAINING) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const cudnnRNNStruct* rnn = rnnDesc;
  const int batch = xDesc->batch_size;
  if (xDesc->data_type != rnn->data_type || yDesc->data_type != rnn->data_type ||
      xDesc->vector_size != rnn->input_size ||
      yDesc->vector_size != rnn->hidden_size * direction_count(rnn) ||
      yDesc->batch_size != batch || yDesc->max_sequence_length != xDesc->max_sequence_length ||
      yDesc->layout != xDesc->layout || !same_lengths(xDesc, yDesc)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (devSeqLengths != nullptr) {
    for (int i = 0; i < batch; ++i) {
      if (devSeqLengths[i] != xDesc->sequence_lengths[i]) return CUDNN_STATUS_BAD_PARAM;
    }
  }
  if (!is_state_descriptor(hDesc, rnn, batch)) return CUDNN_STATUS_BAD_PARAM;
  const bool lstm = rnn->cell_mode == CUDNN_LSTM;
  if (lstm && !is_state_descriptor(cDesc, rnn, batch)) return CUDNN_STATUS_BAD_PARAM;
  const size_t bytes = element_bytes(rnn->data_type);
  const long long max_length = xDesc->max_sequence_length;
  const size_t work_needed = workspace_bytes(rnn, max_length, batch);
  if (weightSpaceSize < static_cast<size_t>(weight_count(rnn)) * bytes ||
      workSpaceSize < work_needed || workSpace == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const bool training = fwdMode == CUDNN_FWD_MODE_TRAINING;
  if (training && (reserveSpace == nullptr ||
                   reserveSpaceSize <
                       static_cast<size_t>(reserve_count(rnn, max_length, batch)) * bytes)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  const Layout5 h_layout = state_layout(hDesc);
  const Layout5 c_layout = lstm ? state_layout(cDesc) : h_layout;
  if (rnn->data_type == CUDNN_DATA_DOUBLE) {
    const RnnBuffers<double> io = {
        static_cast<const double*>(x),  static_cast<double*>(y),
        static_cast<const double*>(hx), static_cast<double*>(hy),
        lstm ? static_cast<const double*>(cx) : nullptr,
        lstm ? static_cast<double*>(cy) : nullptr,
        static_cast<const double*>(weightSpace), static_cast<double*>(workSpace),
        training ? static_cast<double*>(reserveSpace) : nullptr, h_layout, c_layout};
    rnn_forward(rnn, xDesc, yDesc, training, io);
  } else {
    const RnnBuffers<float> io = {
        static_cast<const float*>(x),  static_cast<float*>(y),
        static_cast<const float*>(hx), static_cast<float*>(hy),
        lstm ? static_cast<const float*>(cx) : nullptr,
        lstm ? static_cast<float*>(cy) : nullptr,
        static_cast<const float*>(weightSpace), static_cast<float*>(workSpace),
        training ? static_cast<float*>(reserveSpace) : nullptr, h_layout, c_layout};
    rnn_forward(rnn, xDesc, yDesc, training, io);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
