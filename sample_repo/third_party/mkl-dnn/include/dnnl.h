// oneDNN (v3-style) C API declarations used by ATen/native/mkldnn/Conv.cpp.
#pragma once

#include <stddef.h>
#include <stdint.h>

#define DNNL_MAX_NDIMS 12

#define DNNL_ARG_SRC 1
#define DNNL_ARG_DST 17
#define DNNL_ARG_WEIGHTS 33
#define DNNL_ARG_BIAS 41
#define DNNL_ARG_SCRATCHPAD 80

typedef int64_t dnnl_dim_t;
typedef dnnl_dim_t dnnl_dims_t[DNNL_MAX_NDIMS];

typedef enum {
  dnnl_success = 0,
  dnnl_out_of_memory = 1,
  dnnl_invalid_arguments = 2,
  dnnl_unimplemented = 3,
  dnnl_runtime_error = 5
} dnnl_status_t;

typedef enum {
  dnnl_data_type_undef = 0,
  dnnl_f16 = 1,
  dnnl_bf16 = 2,
  dnnl_f32 = 3,
  dnnl_s32 = 4
} dnnl_data_type_t;

typedef enum {
  dnnl_format_tag_undef = 0,
  dnnl_format_tag_any = 1,
  dnnl_a = 2,
  dnnl_ab = 3,
  dnnl_abcd = 5,
  dnnl_abcde = 6,
  dnnl_x = dnnl_a,
  dnnl_nchw = dnnl_abcd,
  dnnl_oihw = dnnl_abcd,
  dnnl_goihw = dnnl_abcde
} dnnl_format_tag_t;

typedef enum {
  dnnl_prop_kind_undef = 0,
  dnnl_forward_training = 64,
  dnnl_forward_inference = 96
} dnnl_prop_kind_t;

typedef enum {
  dnnl_alg_kind_undef = 0,
  dnnl_convolution_direct = 1,
  dnnl_convolution_winograd = 2,
  dnnl_convolution_auto = 3
} dnnl_alg_kind_t;

typedef enum {
  dnnl_any_engine = 0,
  dnnl_cpu = 1,
  dnnl_gpu = 2
} dnnl_engine_kind_t;

typedef enum {
  dnnl_stream_in_order = 1,
  dnnl_stream_out_of_order = 2,
  dnnl_stream_default_flags = dnnl_stream_in_order
} dnnl_stream_flags_t;

typedef struct dnnl_engine* dnnl_engine_t;
typedef struct dnnl_stream* dnnl_stream_t;
typedef struct dnnl_memory_desc* dnnl_memory_desc_t;
typedef const struct dnnl_memory_desc* const_dnnl_memory_desc_t;
typedef struct dnnl_memory* dnnl_memory_t;
typedef const struct dnnl_memory* const_dnnl_memory_t;
typedef struct dnnl_primitive_desc* dnnl_primitive_desc_t;
typedef const struct dnnl_primitive_desc* const_dnnl_primitive_desc_t;
typedef struct dnnl_primitive* dnnl_primitive_t;
typedef const struct dnnl_primitive* const_dnnl_primitive_t;
typedef struct dnnl_primitive_attr* dnnl_primitive_attr_t;
typedef const struct dnnl_primitive_attr* const_dnnl_primitive_attr_t;

typedef struct {
  int arg;
  dnnl_memory_t memory;
} dnnl_exec_arg_t;

#if defined(__cplusplus)
extern "C" {
#endif

dnnl_status_t dnnl_engine_create(dnnl_engine_t* engine, dnnl_engine_kind_t kind, size_t index);
dnnl_status_t dnnl_engine_destroy(dnnl_engine_t engine);

dnnl_status_t dnnl_stream_create(dnnl_stream_t* stream, dnnl_engine_t engine, unsigned flags);
dnnl_status_t dnnl_stream_wait(dnnl_stream_t stream);
dnnl_status_t dnnl_stream_destroy(dnnl_stream_t stream);

dnnl_status_t dnnl_memory_desc_create_with_tag(dnnl_memory_desc_t* memory_desc, int ndims,
                                               const dnnl_dims_t dims,
                                               dnnl_data_type_t data_type,
                                               dnnl_format_tag_t tag);
dnnl_status_t dnnl_memory_desc_destroy(dnnl_memory_desc_t memory_desc);
size_t dnnl_memory_desc_get_size(const_dnnl_memory_desc_t memory_desc);

dnnl_status_t dnnl_memory_create(dnnl_memory_t* memory, const_dnnl_memory_desc_t memory_desc,
                                 dnnl_engine_t engine, void* handle);
dnnl_status_t dnnl_memory_destroy(dnnl_memory_t memory);

dnnl_status_t dnnl_convolution_forward_primitive_desc_create(
    dnnl_primitive_desc_t* primitive_desc, dnnl_engine_t engine,
    dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
    const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t weights_desc,
    const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_desc,
    const dnnl_dims_t strides, const dnnl_dims_t dilates,
    const dnnl_dims_t padding_l, const dnnl_dims_t padding_r,
    const_dnnl_primitive_attr_t attr);
dnnl_status_t dnnl_primitive_desc_destroy(dnnl_primitive_desc_t primitive_desc);

dnnl_status_t dnnl_primitive_create(dnnl_primitive_t* primitive,
                                    const_dnnl_primitive_desc_t primitive_desc);
dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream,
                                     int nargs, const dnnl_exec_arg_t* args);
dnnl_status_t dnnl_primitive_destroy(dnnl_primitive_t primitive);

#if defined(__cplusplus)
}  // extern "C"
#endif
