// CPU reference implementation of the oneDNN (v3-style) C API declared in
// dnnl.h: engines, streams, plain-layout memory, and a forward convolution
// primitive computed as a direct convolution with double accumulation.
//
// Built with -finstrument-functions: only the dnnl_* entry points may appear
// as traced frames, so helpers carry DNNL_INTERNAL and no C++ library
// templates are used.
#include "dnnl.h"

#include <stdlib.h>
#include <string.h>

#define DNNL_INTERNAL __attribute__((no_instrument_function))

struct dnnl_engine {
  dnnl_engine_kind_t kind;
  size_t index;
};

struct dnnl_stream {
  dnnl_engine_t engine;
  unsigned flags;
};

struct dnnl_memory_desc {
  int ndims;
  dnnl_dims_t dims;
  dnnl_data_type_t data_type;
  dnnl_format_tag_t tag;  // as requested; dnnl_format_tag_any leaves the layout open
  bool has_layout;
  dnnl_dims_t strides;  // in elements, once has_layout
};

struct dnnl_memory {
  dnnl_memory_desc desc;
  dnnl_engine_t engine;
  void* handle;
};

namespace {

// A convolution problem in oneDNN terms, spatial dims padded to three
// (depth, height, width) with size 1 so that 1-D to 3-D share one loop nest.
struct ConvolutionProblem {
  dnnl_prop_kind_t prop_kind;
  dnnl_memory_desc src;
  dnnl_memory_desc weights;
  dnnl_memory_desc bias;
  dnnl_memory_desc dst;
  bool has_bias;
  int spatial_dims;
  dnnl_dim_t groups;
  dnnl_dim_t stride[3];
  dnnl_dim_t dilation[3];  // oneDNN's: 0 means adjacent taps
  dnnl_dim_t padding_left[3];
};

}  // namespace

struct dnnl_primitive_desc {
  dnnl_engine_t engine;
  ConvolutionProblem problem;
};

struct dnnl_primitive {
  ConvolutionProblem problem;
};

namespace {

DNNL_INTERNAL size_t data_type_bytes(dnnl_data_type_t type) {
  switch (type) {
    case dnnl_f16:
    case dnnl_bf16:
      return 2;
    case dnnl_f32:
    case dnnl_s32:
      return 4;
    case dnnl_data_type_undef:
      break;
  }
  return 0;
}

// Rank a plain tag describes; 0 for tags without a fixed rank.
DNNL_INTERNAL int tag_rank(dnnl_format_tag_t tag) {
  switch (tag) {
    case dnnl_a:
      return 1;
    case dnnl_ab:
      return 2;
    case dnnl_abcd:
      return 4;
    case dnnl_abcde:
      return 5;
    case dnnl_format_tag_undef:
    case dnnl_format_tag_any:
      break;
  }
  return 0;
}

DNNL_INTERNAL bool is_plain(const dnnl_memory_desc& md) { return md.has_layout; }

// The plain tags (a, ab, abcd, abcde) are row-major over the dims in order.
DNNL_INTERNAL void set_dense_strides(dnnl_memory_desc* md) {
  dnnl_dim_t running = 1;
  for (int i = md->ndims - 1; i >= 0; --i) {
    md->strides[i] = running;
    running *= md->dims[i];
  }
  md->has_layout = true;
}

DNNL_INTERNAL dnnl_dim_t element_count(const dnnl_memory_desc& md) {
  dnnl_dim_t count = 1;
  for (int i = 0; i < md.ndims; ++i) count *= md.dims[i];
  return count;
}

DNNL_INTERNAL bool same_shape(const dnnl_memory_desc& a, const dnnl_memory_desc& b) {
  if (a.ndims != b.ndims || a.data_type != b.data_type) return false;
  for (int i = 0; i < a.ndims; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

// A 'format any' descriptor takes the plain layout; every other one must
// already be plain.
DNNL_INTERNAL dnnl_memory_desc resolved(const dnnl_memory_desc& md) {
  dnnl_memory_desc plain = md;
  if (!is_plain(plain)) set_dense_strides(&plain);
  return plain;
}

DNNL_INTERNAL dnnl_status_t check_convolution(
    dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind, const dnnl_memory_desc* src,
    const dnnl_memory_desc* weights, const dnnl_memory_desc* bias, const dnnl_memory_desc* dst,
    const dnnl_dims_t strides, const dnnl_dims_t dilates, const dnnl_dims_t padding_l,
    const dnnl_dims_t padding_r, ConvolutionProblem* problem) {
  if (prop_kind != dnnl_forward_training && prop_kind != dnnl_forward_inference) {
    return dnnl_invalid_arguments;
  }
  if (alg_kind == dnnl_convolution_winograd) return dnnl_unimplemented;
  if (alg_kind != dnnl_convolution_direct && alg_kind != dnnl_convolution_auto) {
    return dnnl_invalid_arguments;
  }
  if (src == nullptr || weights == nullptr || dst == nullptr || strides == nullptr ||
      dilates == nullptr || padding_l == nullptr || padding_r == nullptr) {
    return dnnl_invalid_arguments;
  }
  const int nd = src->ndims;
  if (nd < 3 || nd > 5 || dst->ndims != nd) return dnnl_invalid_arguments;
  const bool grouped = weights->ndims == nd + 1;
  if (!grouped && weights->ndims != nd) return dnnl_invalid_arguments;
  if (src->data_type != dnnl_f32 || weights->data_type != dnnl_f32 ||
      dst->data_type != dnnl_f32 || (bias != nullptr && bias->data_type != dnnl_f32)) {
    return dnnl_unimplemented;
  }
  // Weights: [G,] O/G, I/G, spatial...
  const dnnl_dim_t groups = grouped ? weights->dims[0] : 1;
  const dnnl_dim_t* wdims = weights->dims + (grouped ? 1 : 0);
  const dnnl_dim_t out_channels = groups * wdims[0];
  if (groups <= 0 || src->dims[1] != groups * wdims[1] || dst->dims[0] != src->dims[0] ||
      dst->dims[1] != out_channels) {
    return dnnl_invalid_arguments;
  }
  if (bias != nullptr && (bias->ndims != 1 || bias->dims[0] != out_channels)) {
    return dnnl_invalid_arguments;
  }
  const int spatial = nd - 2;
  for (int i = 0; i < spatial; ++i) {
    if (strides[i] <= 0 || dilates[i] < 0) return dnnl_invalid_arguments;
    const dnnl_dim_t span = (wdims[i + 2] - 1) * (dilates[i] + 1) + 1;
    const dnnl_dim_t padded = src->dims[i + 2] + padding_l[i] + padding_r[i];
    if (padded < span || dst->dims[i + 2] != (padded - span) / strides[i] + 1) {
      return dnnl_invalid_arguments;
    }
  }
  problem->prop_kind = prop_kind;
  problem->src = resolved(*src);
  problem->weights = resolved(*weights);
  problem->dst = resolved(*dst);
  problem->has_bias = bias != nullptr;
  if (bias != nullptr) problem->bias = resolved(*bias);
  problem->spatial_dims = spatial;
  problem->groups = groups;
  const int missing = 3 - spatial;
  for (int i = 0; i < 3; ++i) {
    const int from = i - missing;
    problem->stride[i] = from >= 0 ? strides[from] : 1;
    problem->dilation[i] = from >= 0 ? dilates[from] : 0;
    problem->padding_left[i] = from >= 0 ? padding_l[from] : 0;
  }
  return dnnl_success;
}

// Size and stride of logical dim `index` of a rank-`nd` tensor viewed with
// three spatial dims: dims before the spatial ones map directly, absent
// spatial dims are size 1.
struct View {
  dnnl_dim_t size[6];
  dnnl_dim_t stride[6];
};

DNNL_INTERNAL View view_of(const dnnl_memory_desc& md, int leading, int spatial) {
  View view;
  for (int i = 0; i < 6; ++i) {
    view.size[i] = 1;
    view.stride[i] = 0;
  }
  for (int i = 0; i < leading; ++i) {
    view.size[i] = md.dims[i];
    view.stride[i] = md.strides[i];
  }
  const int missing = 3 - spatial;
  for (int i = 0; i < spatial; ++i) {
    view.size[leading + missing + i] = md.dims[leading + i];
    view.stride[leading + missing + i] = md.strides[leading + i];
  }
  return view;
}

DNNL_INTERNAL void convolution_forward(const ConvolutionProblem& p, const float* src,
                                       const float* weights, const float* bias, float* dst) {
  const View s = view_of(p.src, 2, p.spatial_dims);          // N, C, D, H, W
  const View d = view_of(p.dst, 2, p.spatial_dims);          // N, O, D, H, W
  const bool grouped = p.weights.ndims == p.src.ndims + 1;
  // G, O/G, I/G, KD, KH, KW (G of size 1 when ungrouped)
  View w;
  if (grouped) {
    w = view_of(p.weights, 3, p.spatial_dims);
  } else {
    const View plain = view_of(p.weights, 2, p.spatial_dims);
    w.size[0] = 1;
    w.stride[0] = 0;
    for (int i = 0; i < 5; ++i) {
      w.size[i + 1] = plain.size[i];
      w.stride[i + 1] = plain.stride[i];
    }
  }
  const dnnl_dim_t group_out = w.size[1];
  const dnnl_dim_t group_in = w.size[2];
  const dnnl_dim_t bias_stride = p.has_bias ? p.bias.strides[0] : 0;
  for (dnnl_dim_t n = 0; n < d.size[0]; ++n) {
    for (dnnl_dim_t o = 0; o < d.size[1]; ++o) {
      const dnnl_dim_t g = o / group_out;
      const dnnl_dim_t og = o % group_out;
      const double start = bias != nullptr ? static_cast<double>(bias[o * bias_stride]) : 0.0;
      for (dnnl_dim_t od = 0; od < d.size[2]; ++od) {
        for (dnnl_dim_t oh = 0; oh < d.size[3]; ++oh) {
          for (dnnl_dim_t ow = 0; ow < d.size[4]; ++ow) {
            double sum = start;
            for (dnnl_dim_t c = 0; c < group_in; ++c) {
              const float* src_c = src + n * s.stride[0] + (g * group_in + c) * s.stride[1];
              const float* w_c = weights + g * w.stride[0] + og * w.stride[1] + c * w.stride[2];
              for (dnnl_dim_t kd = 0; kd < w.size[3]; ++kd) {
                const dnnl_dim_t id = od * p.stride[0] - p.padding_left[0] + kd * (p.dilation[0] + 1);
                if (id < 0 || id >= s.size[2]) continue;
                for (dnnl_dim_t kh = 0; kh < w.size[4]; ++kh) {
                  const dnnl_dim_t ih =
                      oh * p.stride[1] - p.padding_left[1] + kh * (p.dilation[1] + 1);
                  if (ih < 0 || ih >= s.size[3]) continue;
                  for (dnnl_dim_t kw = 0; kw < w.size[5]; ++kw) {
                    const dnnl_dim_t iw =
                        ow * p.stride[2] - p.padding_left[2] + kw * (p.dilation[2] + 1);
                    if (iw < 0 || iw >= s.size[4]) continue;
                    const float x = src_c[id * s.stride[2] + ih * s.stride[3] + iw * s.stride[4]];
                    const float k = w_c[kd * w.stride[3] + kh * w.stride[4] + kw * w.stride[5]];
                    sum += static_cast<double>(x) * static_cast<double>(k);
                  }
                }
              }
            }
            dst[n * d.stride[0] + o * d.stride[1] + od * d.stride[2] + oh * d.stride[3] +
                ow * d.stride[4]] = static_cast<float>(sum);
          }
        }
      }
    }
  }
}

// The memory bound to `arg`, or null.
DNNL_INTERNAL const dnnl_memory* find_argument(int nargs, const dnnl_exec_arg_t* args, int arg) {
  for (int i = 0; i < nargs; ++i) {
    if (args[i].arg == arg) return args[i].memory;
  }
  return nullptr;
}

DNNL_INTERNAL bool matches(const dnnl_memory* memory, const dnnl_memory_desc& expected) {
  return memory != nullptr && memory->handle != nullptr && is_plain(memory->desc) &&
         same_shape(memory->desc, expected);
}

}  // namespace

extern "C" {

dnnl_status_t dnnl_engine_create(dnnl_engine_t* engine, dnnl_engine_kind_t kind, size_t index) {
  if (engine == nullptr) return dnnl_invalid_arguments;
  // There is one CPU engine; 'any' resolves to it.
  if ((kind != dnnl_cpu && kind != dnnl_any_engine) || index != 0) return dnnl_invalid_arguments;
  dnnl_engine_t created = static_cast<dnnl_engine_t>(malloc(sizeof(dnnl_engine)));
  if (created == nullptr) return dnnl_out_of_memory;
  created->kind = dnnl_cpu;
  created->index = index;
  *engine = created;
  return dnnl_success;
}

dnnl_status_t dnnl_engine_destroy(dnnl_engine_t engine) {
  free(engine);
  return dnnl_success;
}

dnnl_status_t dnnl_stream_create(dnnl_stream_t* stream, dnnl_engine_t engine, unsigned flags) {
  if (stream == nullptr || engine == nullptr) return dnnl_invalid_arguments;
  if (flags == 0 || (flags & ~static_cast<unsigned>(dnnl_stream_in_order | dnnl_stream_out_of_order)) != 0) {
    return dnnl_invalid_arguments;
  }
  dnnl_stream_t created = static_cast<dnnl_stream_t>(malloc(sizeof(dnnl_stream)));
  if (created == nullptr) return dnnl_out_of_memory;
  created->engine = engine;
  created->flags = flags;
  *stream = created;
  return dnnl_success;
}

// Primitives execute synchronously, so there is never anything to wait for.
dnnl_status_t dnnl_stream_wait(dnnl_stream_t stream) {
  return stream == nullptr ? dnnl_invalid_arguments : dnnl_success;
}

dnnl_status_t dnnl_stream_destroy(dnnl_stream_t stream) {
  free(stream);
  return dnnl_success;
}

dnnl_status_t dnnl_memory_desc_create_with_tag(dnnl_memory_desc_t* memory_desc, int ndims,
                                               const dnnl_dims_t dims,
                                               dnnl_data_type_t data_type,
                                               dnnl_format_tag_t tag) {
  if (memory_desc == nullptr || dims == nullptr) return dnnl_invalid_arguments;
  if (ndims <= 0 || ndims > DNNL_MAX_NDIMS || data_type_bytes(data_type) == 0) {
    return dnnl_invalid_arguments;
  }
  if (tag != dnnl_format_tag_any && tag_rank(tag) != ndims) return dnnl_invalid_arguments;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return dnnl_invalid_arguments;
  }
  dnnl_memory_desc_t md = static_cast<dnnl_memory_desc_t>(calloc(1, sizeof(dnnl_memory_desc)));
  if (md == nullptr) return dnnl_out_of_memory;
  md->ndims = ndims;
  for (int i = 0; i < ndims; ++i) md->dims[i] = dims[i];
  md->data_type = data_type;
  md->tag = tag;
  if (tag != dnnl_format_tag_any) set_dense_strides(md);
  *memory_desc = md;
  return dnnl_success;
}

dnnl_status_t dnnl_memory_desc_destroy(dnnl_memory_desc_t memory_desc) {
  free(memory_desc);
  return dnnl_success;
}

// Bytes the described memory occupies; 0 while the layout is still 'any'.
size_t dnnl_memory_desc_get_size(const_dnnl_memory_desc_t memory_desc) {
  if (memory_desc == nullptr || !is_plain(*memory_desc)) return 0;
  return static_cast<size_t>(element_count(*memory_desc)) *
         data_type_bytes(memory_desc->data_type);
}

dnnl_status_t dnnl_memory_create(dnnl_memory_t* memory, const_dnnl_memory_desc_t memory_desc,
                                 dnnl_engine_t engine, void* handle) {
  if (memory == nullptr || memory_desc == nullptr || engine == nullptr) {
    return dnnl_invalid_arguments;
  }
  if (!is_plain(*memory_desc)) return dnnl_invalid_arguments;  // layout not chosen yet
  dnnl_memory_t created = static_cast<dnnl_memory_t>(malloc(sizeof(dnnl_memory)));
  if (created == nullptr) return dnnl_out_of_memory;
  created->desc = *memory_desc;
  created->engine = engine;
  created->handle = handle;
  *memory = created;
  return dnnl_success;
}

dnnl_status_t dnnl_memory_destroy(dnnl_memory_t memory) {
  free(memory);
  return dnnl_success;
}

dnnl_status_t dnnl_convolution_forward_primitive_desc_create(
    dnnl_primitive_desc_t* primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
    dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t src_desc,
    const_dnnl_memory_desc_t weights_desc, const_dnnl_memory_desc_t bias_desc,
    const_dnnl_memory_desc_t dst_desc, const dnnl_dims_t strides, const dnnl_dims_t dilates,
    const dnnl_dims_t padding_l, const dnnl_dims_t padding_r,
    const_dnnl_primitive_attr_t attr) {
  if (primitive_desc == nullptr || engine == nullptr) return dnnl_invalid_arguments;
  // No attribute can be built through this API, so a non-null one is foreign.
  if (attr != nullptr) return dnnl_unimplemented;
  dnnl_primitive_desc_t pd =
      static_cast<dnnl_primitive_desc_t>(calloc(1, sizeof(dnnl_primitive_desc)));
  if (pd == nullptr) return dnnl_out_of_memory;
  const dnnl_status_t status =
      check_convolution(prop_kind, alg_kind, src_desc, weights_desc, bias_desc, dst_desc,
                        strides, dilates, padding_l, padding_r, &pd->problem);
  if (status != dnnl_success) {
    free(pd);
    return status;
  }
  pd->engine = engine;
  *primitive_desc = pd;
  return dnnl_success;
}

dnnl_status_t dnnl_primitive_desc_destroy(dnnl_primitive_desc_t primitive_desc) {
  free(primitive_desc);
  return dnnl_success;
}

dnnl_status_t dnnl_primitive_create(dnnl_primitive_t* primitive,
                                    const_dnnl_primitive_desc_t primitive_desc) {
  if (primitive == nullptr || primitive_desc == nullptr) return dnnl_invalid_arguments;
  dnnl_primitive_t created = static_cast<dnnl_primitive_t>(malloc(sizeof(dnnl_primitive)));
  if (created == nullptr) return dnnl_out_of_memory;
  created->problem = primitive_desc->problem;
  *primitive = created;
  return dnnl_success;
}

dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream,
                                     int nargs, const dnnl_exec_arg_t* args) {
  if (primitive == nullptr || stream == nullptr || nargs < 0 || (nargs > 0 && args == nullptr)) {
    return dnnl_invalid_arguments;
  }
  const ConvolutionProblem& p = primitive->problem;
  const dnnl_memory* src = find_argument(nargs, args, DNNL_ARG_SRC);
  const dnnl_memory* weights = find_argument(nargs, args, DNNL_ARG_WEIGHTS);
  const dnnl_memory* dst = find_argument(nargs, args, DNNL_ARG_DST);
  const dnnl_memory* bias = find_argument(nargs, args, DNNL_ARG_BIAS);
  if (!matches(src, p.src) || !matches(weights, p.weights) || !matches(dst, p.dst) ||
      (p.has_bias && !matches(bias, p.bias))) {
    return dnnl_invalid_arguments;
  }
  ConvolutionProblem bound = p;  // the memories' own strides win
  bound.src = src->desc;
  bound.weights = weights->desc;
  bound.dst = dst->desc;
  if (p.has_bias) bound.bias = bias->desc;
  convolution_forward(bound, static_cast<const float*>(src->handle),
                      static_cast<const float*>(weights->handle),
                      p.has_bias ? static_cast<const float*>(bias->handle) : nullptr,
                      static_cast<float*>(dst->handle));
  return dnnl_success;
}

dnnl_status_t dnnl_primitive_destroy(dnnl_primitive_t primitive) {
  free(primitive);
  return dnnl_success;
}

}  // extern "C"
