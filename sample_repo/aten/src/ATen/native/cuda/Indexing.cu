#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <vector>

namespace at::native {

namespace {

// out[o, i, r] = self[o, index[i], r] on contiguous [outer, dim, inner] views.
// Out-of-range indices are clamped here; the host side validated them.
template <typename scalar_t, typename IndexType>
__global__ void index_select_kernel(scalar_t* out, const scalar_t* self, const scalar_t* index,
                                    IndexType n_index, IndexType dim_size, IndexType inner,
                                    IndexType total) {
  for (IndexType linear = blockIdx.x * blockDim.x + threadIdx.x; linear < total;
       linear += gridDim.x * blockDim.x) {
    const IndexType r = linear % inner;
    const IndexType i = (linear / inner) % n_index;
    const IndexType o = linear / (inner * n_index);
    IndexType k = static_cast<IndexType>(index[i]);
    if (k >= dim_size) k = dim_size - 1;
    out[linear] = self[(o * dim_size + k) * inner + r];
  }
}

// Blocks for n elements, capped: Dropout.cu has a file-local helper of the same name.
unsigned int blocks_for(int64_t n, int threads) {
  const int64_t wanted = (n + threads - 1) / threads;
  return static_cast<unsigned int>(wanted < 65535 ? wanted : 65535);
}

} // namespace

Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  TORCH_CHECK(self.is_cuda() && index.is_cuda(), "index_select_cuda: expected CUDA tensors");
  TORCH_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const Tensor src = self.contiguous();
  const Tensor idx = index.contiguous();

  std::vector<int64_t> out_sizes = src.sizes().vec();
  if (!out_sizes.empty()) out_sizes[dim] = idx.numel();
  Tensor out = at::empty(out_sizes, src.options());
  const int64_t total = out.numel();
  if (total == 0) return out;

  int64_t inner = 1;
  for (int64_t d = dim + 1; d < src.dim(); ++d) inner *= src.size(d);
  const int64_t dim_size = src.dim() == 0 ? 1 : src.size(dim);

  const int threads = 256;
  const dim3 grid(blocks_for(total, threads));
  const dim3 block(threads);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  index_select_kernel<float, int64_t><<<grid, block, 0, stream>>>(
      out.data_ptr<float>(), src.data_ptr<float>(), idx.data_ptr<float>(), idx.numel(),
      dim_size, inner, total);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

} // namespace at::native
