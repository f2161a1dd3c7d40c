#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()

#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/Exceptions.h>
#include <ATen/cudnn/Handle.h>
#include <ATen/native/cudnn/ConvShared.h>

#include <algorithm>
#include <limits>

namespace at {
namespace native {

namespace {

// Signature shared by the 32-bit launchers handed to the batch splitter.
using ConvForward32bitFn = void (*)(const Tensor& output, const Tensor& input,
                                    const Tensor& weight, IntArrayRef padding, IntArrayRef stride,
                                    IntArrayRef dilation, int64_t groups, bool benchmark,
                                    bool deterministic, bool allow_tf32);

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

#if defined(USE_ROCM)
// ROCm fork: the HIP-compatible library has no heuristic query, so use the
// one algorithm every build supports and skip the workspace entirely.
cudnnConvolutionFwdAlgo_t pick_forward_algo(const ConvolutionArgs& args, bool benchmark,
                                            bool deterministic, size_t* workspace_bytes) {
  (void)args;
  (void)benchmark;
  (void)deterministic;
  *workspace_bytes = 0;
  return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
}
#else
// Ask cuDNN's heuristics for ranked algorithms, keep the first that
// succeeded (and is deterministic when asked), then size its workspace.
cudnnConvolutionFwdAlgo_t pick_forward_algo(const ConvolutionArgs& args, bool benchmark,
                                            bool deterministic, size_t* workspace_bytes) {
  (void)benchmark; // no timing-based search in the sample tree
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  AT_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      args.handle, args.idesc.desc(), args.wdesc.desc(), args.cdesc.desc(), args.odesc.desc(),
      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (deterministic && perf[i].determinism != CUDNN_DETERMINISTIC) continue;
    algo = perf[i].algo;
    break;
  }
  AT_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(args.handle, args.idesc.desc(),
                                                         args.wdesc.desc(), args.cdesc.desc(),
                                                         args.odesc.desc(), algo,
                                                         workspace_bytes));
  return algo;
}
#endif

// cuDNN indexes with 32-bit ints. When a tensor is too big, run the
// convolution on slices of the batch that each fit, one call per slice.
void split_batch_dim_to_32bit_out(const Tensor& output, const Tensor& input,
                                  const Tensor& weight, IntArrayRef padding, IntArrayRef stride,
                                  IntArrayRef dilation, int64_t groups, bool benchmark,
                                  bool deterministic, bool allow_tf32, int64_t max_worksize,
                                  ConvForward32bitFn func_32bit) {
  if (input.numel() <= kIntMax && output.numel() <= kIntMax) {
    func_32bit(output, input, weight, padding, stride, dilation, groups, benchmark,
               deterministic, allow_tf32);
    return;
  }
  const int64_t n = input.size(0);
  const int64_t max_inner_size = std::max(input.numel() / n, output.numel() / n);
  const int64_t split_size = std::max<int64_t>(max_worksize / max_inner_size, 1);
  TORCH_CHECK(split_size * max_inner_size <= kIntMax,
              "a single sample is too large for 32-bit indexing; not supported");
  for (int64_t start = 0; start < n; start += split_size) {
    const int64_t len = std::min(split_size, n - start);
    const Tensor input_slice = input.narrow(0, start, len);
    const Tensor output_slice = output.narrow(0, start, len);
    func_32bit(output_slice, input_slice, weight, padding, stride, dilation, groups, benchmark,
               deterministic, allow_tf32);
  }
}

void raw_cudnn_convolution_forward_out_32bit(const Tensor& output, const Tensor& input,
                                             const Tensor& weight, IntArrayRef padding,
                                             IntArrayRef stride, IntArrayRef dilation,
                                             int64_t groups, bool benchmark, bool deterministic,
                                             bool allow_tf32) {
  ConvolutionArgs args{input, output, weight};
  args.handle = getCudnnHandle();
  setConvolutionDescriptors(args, padding, stride, dilation, groups, allow_tf32);

  size_t workspace_bytes = 0;
  const cudnnConvolutionFwdAlgo_t algo =
      pick_forward_algo(args, benchmark, deterministic, &workspace_bytes);
  // workspace is a raw byte buffer; allocate it as floats on the same device
  const int64_t workspace_elems =
      static_cast<int64_t>((workspace_bytes + sizeof(float) - 1) / sizeof(float));
  Tensor workspace = at::empty({std::max<int64_t>(workspace_elems, 1)}, input.options());

  const float one = 1.0f;
  const float zero = 0.0f;
  AT_CUDNN_CHECK(cudnnConvolutionForward(args.handle, &one, args.idesc.desc(), input.data_ptr(),
                                         args.wdesc.desc(), weight.data_ptr(), args.cdesc.desc(),
                                         algo, workspace.data_ptr(), workspace_bytes, &zero,
                                         args.odesc.desc(), output.data_ptr()),
                 " (input ", input.sizes(), ", weight ", weight.sizes(), ")");
}

} // namespace

void raw_cudnn_convolution_forward_out(const Tensor& output, const Tensor& input,
                                       const Tensor& weight, IntArrayRef padding,
                                       IntArrayRef stride, IntArrayRef dilation, int64_t groups,
                                       bool benchmark, bool deterministic, bool allow_tf32) {
  if (output.numel() == 0) return;
  split_batch_dim_to_32bit_out(output, input, weight, padding, stride, dilation, groups,
                               benchmark, deterministic, allow_tf32, 1024 * 1024 * 256,
                               raw_cudnn_convolution_forward_out_32bit);
}

} // namespace native
} // namespace at

#endif // AT_CUDNN_ENABLED()
