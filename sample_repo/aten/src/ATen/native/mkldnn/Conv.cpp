#include <ATen/Config.h>
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>

#if AT_MKLDNN_ENABLED()

#include <dnnl.h>

#include <vector>

namespace at { namespace native {

namespace {

#define DNNL_CHECK(EXPR)                                                  \
  do {                                                                    \
    const dnnl_status_t __s = (EXPR);                                     \
    TORCH_CHECK(__s == dnnl_success, "oneDNN call failed (status ", __s,  \
                "): " #EXPR);                                             \
  } while (0)

dnnl_engine_t cpu_engine() {
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    DNNL_CHECK(dnnl_engine_create(&e, dnnl_cpu, 0));
    return e;
  }();
  return engine;
}

dnnl_stream_t cpu_stream() {
  thread_local dnnl_stream_t stream = [] {
    dnnl_stream_t s = nullptr;
    DNNL_CHECK(dnnl_stream_create(&s, cpu_engine(), dnnl_stream_default_flags));
    return s;
  }();
  return stream;
}

// Owns the oneDNN objects of one primitive call and frees them in reverse.
struct ConvResources {
  std::vector<dnnl_memory_desc_t> descs;
  std::vector<dnnl_memory_t> memories;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t prim = nullptr;

  ~ConvResources() {
    if (prim) dnnl_primitive_destroy(prim);
    if (pd) dnnl_primitive_desc_destroy(pd);
    for (auto m : memories) dnnl_memory_destroy(m);
    for (auto d : descs) dnnl_memory_desc_destroy(d);
  }

  dnnl_memory_desc_t desc(const std::vector<int64_t>& sizes, dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {};
    for (size_t i = 0; i < sizes.size(); ++i) dims[i] = sizes[i];
    dnnl_memory_desc_t md = nullptr;
    DNNL_CHECK(dnnl_memory_desc_create_with_tag(&md, static_cast<int>(sizes.size()), dims,
                                                dnnl_f32, tag));
    descs.push_back(md);
    return md;
  }

  dnnl_memory_t wrap(dnnl_memory_desc_t md, const Tensor& t) {
    dnnl_memory_t mem = nullptr;
    DNNL_CHECK(dnnl_memory_create(&mem, md, cpu_engine(), t.data_ptr()));
    memories.push_back(mem);
    return mem;
  }
};

void fill_dims(dnnl_dims_t out, IntArrayRef values, int64_t minus = 0) {
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i] - minus;
}

Tensor _mkldnn_convolution(const Tensor& input_t, const Tensor& weight_t, const Tensor& bias_t,
                           IntArrayRef padding, IntArrayRef stride, IntArrayRef dilation,
                           int64_t groups) {
  // oneDNN reads these buffers in place: keep dense copies alive until the end
  const Tensor input = input_t.contiguous();
  const Tensor weight = weight_t.contiguous();
  const Tensor bias = bias_t.defined() ? bias_t.contiguous() : bias_t;
  Tensor output = at::empty(
      conv_output_size(input.sizes(), weight.sizes(), padding, stride, dilation),
      input.options());

  ConvResources res;
  dnnl_memory_desc_t src_md = res.desc(input.sizes().vec(), dnnl_nchw);
  dnnl_memory_desc_t dst_md = res.desc(output.sizes().vec(), dnnl_nchw);
  dnnl_memory_desc_t wei_md = nullptr;
  if (groups > 1) {
    // grouped weights are viewed as (G, O/G, I/G, KH, KW)
    std::vector<int64_t> g_sizes = {groups, weight.size(0) / groups, weight.size(1),
                                    weight.size(2), weight.size(3)};
    wei_md = res.desc(g_sizes, dnnl_goihw);
  } else {
    wei_md = res.desc(weight.sizes().vec(), dnnl_oihw);
  }
  dnnl_memory_desc_t bias_md = bias.defined() ? res.desc({bias.numel()}, dnnl_x) : nullptr;

  dnnl_dims_t strides = {}, dilates = {}, pad_l = {}, pad_r = {};
  fill_dims(strides, stride);
  fill_dims(dilates, dilation, /*minus=*/1); // oneDNN counts dilation from 0
  fill_dims(pad_l, padding);
  fill_dims(pad_r, padding);

  DNNL_CHECK(dnnl_convolution_forward_primitive_desc_create(
      &res.pd, cpu_engine(), dnnl_forward_inference, dnnl_convolution_direct, src_md, wei_md,
      bias_md, dst_md, strides, dilates, pad_l, pad_r, /*attr=*/nullptr));
  DNNL_CHECK(dnnl_primitive_create(&res.prim, res.pd));

  std::vector<dnnl_exec_arg_t> args;
  args.push_back({DNNL_ARG_SRC, res.wrap(src_md, input)});
  args.push_back({DNNL_ARG_WEIGHTS, res.wrap(wei_md, weight)});
  if (bias.defined()) {
    args.push_back({DNNL_ARG_BIAS, res.wrap(bias_md, bias)});
  }
  args.push_back({DNNL_ARG_DST, res.wrap(dst_md, output)});

  dnnl_stream_t stream = cpu_stream();
  DNNL_CHECK(dnnl_primitive_execute(res.prim, stream, static_cast<int>(args.size()),
                                    args.data()));
  DNNL_CHECK(dnnl_stream_wait(stream));
  return output;
}

} // namespace

Tensor mkldnn_convolution(const Tensor& input, const Tensor& weight,
                          const std::optional<Tensor>& bias_opt, IntArrayRef padding,
                          IntArrayRef stride, IntArrayRef dilation, int64_t groups) {
  TORCH_CHECK(input.is_cpu() && weight.is_cpu(), "mkldnn_convolution: expected CPU tensors");
  TORCH_CHECK(input.dim() == 4, "mkldnn_convolution: only 2-d convolution is supported");
  const Tensor bias = bias_opt.value_or(Tensor());
  const int64_t dim = input.dim() - 2;
  return _mkldnn_convolution(input, weight, bias,
                             expand_param_if_needed(padding, "padding", dim),
                             expand_param_if_needed(stride, "stride", dim),
                             expand_param_if_needed(dilation, "dilation", dim), groups);
}

}} // namespace at::native

#else // AT_MKLDNN_ENABLED()

namespace at { namespace native {

Tensor mkldnn_convolution(const Tensor&, const Tensor&, const std::optional<Tensor>&,
                          IntArrayRef, IntArrayRef, IntArrayRef, int64_t) {
  AT_ERROR("mkldnn_convolution: ATen not compiled with MKLDNN support");
}

}} // namespace at::native

#endif // AT_MKLDNN_ENABLED()
