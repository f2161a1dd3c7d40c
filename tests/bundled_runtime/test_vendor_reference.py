"""The CPU reference vendor libraries (cuDNN, cuBLAS, CUDA runtime, oneDNN) and the CUDA emulation.

A small C++ driver calls the real entry points; its printed results are checked against
plain-Python references. Kernel launches are translated with translate_cuda_source, compiled
with -finstrument-functions and traced by a recorder linked into the driver executable.
"""

from __future__ import annotations

import importlib.util
import math
import os
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from explorer.folders import SAMPLE_ROOT

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler on this machine")

CUDA_INCLUDE = SAMPLE_ROOT / "third_party/cuda/include"
DNNL_INCLUDE = SAMPLE_ROOT / "third_party/mkl-dnn/include"
VENDOR_SOURCES = [
    SAMPLE_ROOT / "third_party/cuda/src/cudnn.cpp",
    SAMPLE_ROOT / "third_party/cuda/src/cublas.cpp",
    SAMPLE_ROOT / "third_party/cuda/src/cuda_runtime.cpp",
    SAMPLE_ROOT / "third_party/mkl-dnn/src/dnnl.cpp",
]
INCLUDES = [f"-I{SAMPLE_ROOT / 'aten/src'}", f"-I{SAMPLE_ROOT}", f"-I{CUDA_INCLUDE}", f"-I{DNNL_INCLUDE}"]
CXX = ["c++", "-std=c++17", "-fPIC"]

CUDNN_STATUS_BAD_PARAM = 3
CUDNN_STATUS_NOT_SUPPORTED = 9
CUBLAS_STATUS_NOT_INITIALIZED = 1
CUBLAS_STATUS_INVALID_VALUE = 7


def _load_translator():
    # Loaded by path: importing the sample's `torch` package would run its __init__.
    path = SAMPLE_ROOT / "torch/utils/_cuda_emulation.py"
    spec = importlib.util.spec_from_file_location("sample_cuda_emulation", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cuda_emulation = _load_translator()
translate = cuda_emulation.translate_cuda_source


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def vendor_objects(tmp_path_factory) -> list[Path]:
    """The four reference sources, built as the runtime library builds them: instrumented, warning-free."""
    out = tmp_path_factory.mktemp("vendor")

    def build(source: Path) -> Path:
        obj = out / (source.stem + ".o")
        _run(
            [
                *CXX,
                "-O1",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-finstrument-functions",
                *INCLUDES,
                "-c",
                str(source),
                "-o",
                str(obj),
            ]
        )
        return obj

    with ThreadPoolExecutor(max_workers=len(VENDOR_SOURCES)) as pool:
        return list(pool.map(build, VENDOR_SOURCES))


# --- the vendor driver --------------------------------------------------------------------------

VENDOR_DRIVER = r"""
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <dnnl.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<float> floats(long n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) std::scanf("%f", &x);
  return v;
}
int integer() { int v = 0; std::scanf("%d", &v); return v; }
double real() { double v = 0; std::scanf("%lf", &v); return v; }
void print(const char* name, const float* v, long n) {
  std::printf("%s", name);
  for (long i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(v[i]));
  std::printf("\n");
}
void print(const char* name, long long v) { std::printf("%s %lld\n", name, v); }

cudnnTensorDescriptor_t tensor(std::vector<int> dims) {
  std::vector<int> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  cudnnTensorDescriptor_t d = nullptr;
  cudnnCreateTensorDescriptor(&d);
  cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, static_cast<int>(dims.size()), dims.data(), strides.data());
  return d;
}

int conv() {
  const int N = integer(), C = integer(), H = integer(), W = integer(), K = integer(), G = integer();
  const int R = integer(), S = integer();
  int pad[2] = {integer(), integer()}, stride[2] = {integer(), integer()}, dil[2] = {integer(), integer()};
  const int mode = integer();
  const float alpha = static_cast<float>(real()), beta = static_cast<float>(real());
  const int OH = (H + 2 * pad[0] - (dil[0] * (R - 1) + 1)) / stride[0] + 1;
  const int OW = (W + 2 * pad[1] - (dil[1] * (S - 1) + 1)) / stride[1] + 1;
  std::vector<float> x = floats(1L * N * C * H * W), w = floats(1L * K * (C / G) * R * S);
  std::vector<float> y = floats(1L * N * K * OH * OW);
  cudnnHandle_t handle = nullptr;
  cudnnCreate(&handle);
  cudnnTensorDescriptor_t xd = tensor({N, C, H, W}), yd = tensor({N, K, OH, OW}), bad = tensor({N, K, OH + 1, OW});
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnCreateFilterDescriptor(&wd);
  const int wdims[4] = {K, C / G, R, S};
  cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wdims);
  cudnnConvolutionDescriptor_t cd = nullptr;
  cudnnCreateConvolutionDescriptor(&cd);
  print("set", cudnnSetConvolutionNdDescriptor(cd, 2, pad, stride, dil, static_cast<cudnnConvolutionMode_t>(mode), CUDNN_DATA_FLOAT));
  print("groups", cudnnSetConvolutionGroupCount(cd, G));
  cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH);

  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  print("algo_status", cudnnGetConvolutionForwardAlgorithm_v7(handle, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  print("algo_count", returned);
  print("algo_ok", perf[0].status == CUDNN_STATUS_SUCCESS && perf[0].determinism == CUDNN_DETERMINISTIC);
  size_t workspace = 1;
  print("workspace_status", cudnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, cd, yd, perf[0].algo, &workspace));
  print("workspace", static_cast<long long>(workspace));
  print("forward", cudnnConvolutionForward(handle, &alpha, xd, x.data(), wd, w.data(), cd, perf[0].algo, nullptr, 0, &beta, yd, y.data()));
  print("y", y.data(), static_cast<long>(y.size()));
  // Mismatched output shape, missing descriptor, inconsistent group count.
  print("bad_shape", cudnnConvolutionForward(handle, &alpha, xd, x.data(), wd, w.data(), cd, perf[0].algo, nullptr, 0, &beta, bad, y.data()));
  print("null_desc", cudnnConvolutionForward(handle, &alpha, nullptr, x.data(), wd, w.data(), cd, perf[0].algo, nullptr, 0, &beta, yd, y.data()));
  cudnnSetConvolutionGroupCount(cd, G + 1);
  print("bad_groups", cudnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, cd, yd, perf[0].algo, &workspace));
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyTensorDescriptor(bad);
  return cudnnDestroy(handle);
}

int batch_norm() {
  const int N = integer(), C = integer(), H = integer(), W = integer();
  const double factor = real(), eps = real();
  std::vector<float> x = floats(1L * N * C * H * W), scale = floats(C), bias = floats(C);
  std::vector<float> running_mean = floats(C), running_var = floats(C);
  std::vector<float> y(x.size()), save_mean(C), save_invstd(C), y_eval(x.size());
  cudnnHandle_t handle = nullptr;
  cudnnCreate(&handle);
  cudnnTensorDescriptor_t xd = tensor({N, C, H, W}), pd = nullptr, wrong = tensor({1, C + 1, 1, 1});
  cudnnCreateTensorDescriptor(&pd);
  print("derive", cudnnDeriveBNTensorDescriptor(pd, xd, CUDNN_BATCHNORM_SPATIAL));
  cudnnDataType_t type;
  int nb = 0, dims[8], strides[8];
  cudnnGetTensorNdDescriptor(pd, 8, &type, &nb, dims, strides);
  print("derived_dims", nb * 10000 + dims[0] * 1000 + dims[1] * 100 + dims[2] * 10 + dims[3]);
  const float one = 1.0f, zero = 0.0f;
  print("train", cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(), xd, y.data(), pd, scale.data(), bias.data(), factor, running_mean.data(), running_var.data(), eps, save_mean.data(), save_invstd.data()));
  print("y", y.data(), static_cast<long>(y.size()));
  print("running_mean", running_mean.data(), C);
  print("running_var", running_var.data(), C);
  print("save_mean", save_mean.data(), C);
  print("save_invstd", save_invstd.data(), C);
  print("eval", cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(), xd, y_eval.data(), pd, scale.data(), bias.data(), running_mean.data(), running_var.data(), eps));
  print("y_eval", y_eval.data(), static_cast<long>(y_eval.size()));
  print("null_scale", cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(), xd, y.data(), pd, nullptr, bias.data(), factor, nullptr, nullptr, eps, nullptr, nullptr));
  print("half_running", cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(), xd, y.data(), pd, scale.data(), bias.data(), factor, running_mean.data(), nullptr, eps, nullptr, nullptr));
  print("wrong_params", cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(), xd, y_eval.data(), wrong, scale.data(), bias.data(), running_mean.data(), running_var.data(), eps));
  return cudnnDestroy(handle);
}

int gemm() {
  const int ta = integer(), tb = integer(), m = integer(), n = integer(), k = integer();
  const int lda = integer(), ldb = integer(), ldc = integer();
  const float alpha = static_cast<float>(real()), beta = static_cast<float>(real());
  const int a_cols = ta == 0 ? k : m, b_cols = tb == 0 ? n : k;
  std::vector<float> a = floats(1L * lda * a_cols), b = floats(1L * ldb * b_cols), c = floats(1L * ldc * n);
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end()), cd(c.begin(), c.end());
  const double alpha_d = alpha, beta_d = beta;
  cublasHandle_t handle = nullptr;
  cublasCreate(&handle);
  const auto opa = static_cast<cublasOperation_t>(ta), opb = static_cast<cublasOperation_t>(tb);
  print("sgemm", cublasSgemm(handle, opa, opb, m, n, k, &alpha, a.data(), lda, b.data(), ldb, &beta, c.data(), ldc));
  print("c", c.data(), static_cast<long>(c.size()));
  print("dgemm", cublasDgemm(handle, opa, opb, m, n, k, &alpha_d, ad.data(), lda, bd.data(), ldb, &beta_d, cd.data(), ldc));
  std::vector<float> cdf(cd.begin(), cd.end());
  print("c_double", cdf.data(), static_cast<long>(cdf.size()));
  print("small_lda", cublasSgemm(handle, opa, opb, m, n, k, &alpha, a.data(), (ta == 0 ? m : k) - 1, b.data(), ldb, &beta, c.data(), ldc));
  print("null_handle", cublasSgemm(nullptr, opa, opb, m, n, k, &alpha, a.data(), lda, b.data(), ldb, &beta, c.data(), ldc));
  print("status_text", std::strcmp(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
  return cublasDestroy(handle);
}

int rnn() {
  const int mode = integer(), layers = integer(), dirs = integer(), input_size = integer(), hidden = integer();
  const int batch = integer(), max_len = integer(), layout = integer();
  std::vector<int> lengths(batch);
  for (int& l : lengths) l = integer();
  const float fill = static_cast<float>(real());
  const float dropout = static_cast<float>(real());
  const long weight_count = integer();
  std::vector<float> x = floats(1L * max_len * batch * input_size);
  std::vector<float> hx = floats(1L * layers * dirs * batch * hidden), cx = floats(1L * layers * dirs * batch * hidden);
  std::vector<float> weights = floats(weight_count);

  cudnnHandle_t handle = nullptr;
  cudnnCreate(&handle);
  size_t state_bytes = 0;
  cudnnDropoutGetStatesSize(handle, &state_bytes);
  std::vector<unsigned char> states(state_bytes);
  cudnnDropoutDescriptor_t dd = nullptr;
  cudnnCreateDropoutDescriptor(&dd);
  print("dropout", cudnnSetDropoutDescriptor(dd, handle, dropout, states.data(), state_bytes, 1234));
  cudnnRNNDescriptor_t rd = nullptr;
  cudnnCreateRNNDescriptor(&rd);
  print("set", cudnnSetRNNDescriptor_v8(rd, CUDNN_RNN_ALGO_STANDARD, static_cast<cudnnRNNMode_t>(mode), CUDNN_RNN_DOUBLE_BIAS,
        dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
        CUDNN_DEFAULT_MATH, input_size, hidden, hidden, layers, dd, CUDNN_RNN_PADDED_IO_ENABLED));
  size_t weight_bytes = 0;
  cudnnGetRNNWeightSpaceSize(handle, rd, &weight_bytes);
  print("weight_bytes", static_cast<long long>(weight_bytes));
  cudnnRNNDataDescriptor_t xd = nullptr, yd = nullptr;
  cudnnCreateRNNDataDescriptor(&xd);
  cudnnCreateRNNDataDescriptor(&yd);
  const auto data_layout = static_cast<cudnnRNNDataLayout_t>(layout);
  cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, data_layout, max_len, batch, input_size, lengths.data(), nullptr);
  float fill_value = fill;
  cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, data_layout, max_len, batch, hidden * dirs, lengths.data(), &fill_value);
  cudnnTensorDescriptor_t hd = nullptr, wrong = nullptr;
  cudnnCreateTensorDescriptor(&hd);
  cudnnCreateTensorDescriptor(&wrong);
  const int hdims[3] = {layers * dirs, batch, hidden}, hstrides[3] = {batch * hidden, hidden, 1};
  const int wdims[3] = {layers * dirs, batch, hidden + 1}, wstrides[3] = {batch * (hidden + 1), hidden + 1, 1};
  cudnnSetTensorNdDescriptor(hd, CUDNN_DATA_FLOAT, 3, hdims, hstrides);
  cudnnSetTensorNdDescriptor(wrong, CUDNN_DATA_FLOAT, 3, wdims, wstrides);
  std::vector<int32_t> dev_lengths(lengths.begin(), lengths.end());
  for (int train = 0; train < 2; ++train) {
    const cudnnForwardMode_t fwd = train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
    size_t work_bytes = 0, reserve_bytes = 0;
    cudnnGetRNNTempSpaceSizes(handle, rd, fwd, xd, &work_bytes, &reserve_bytes);
    std::vector<double> work(work_bytes / sizeof(double) + 1);
    std::vector<float> reserve(reserve_bytes / sizeof(float) + 1);
    std::vector<float> y(1L * max_len * batch * hidden * dirs, -99.0f), hy(hx.size()), cy(cx.size());
    const std::string tag = train ? "train_" : "";
    print((tag + "reserve_bytes").c_str(), static_cast<long long>(reserve_bytes));
    print((tag + "forward").c_str(), cudnnRNNForward(handle, rd, fwd, dev_lengths.data(), xd, x.data(), yd, y.data(), hd, hx.data(), hy.data(), hd, cx.data(), cy.data(),
          weight_bytes, weights.data(), work_bytes, work.data(), reserve_bytes, reserve.data()));
    print((tag + "y").c_str(), y.data(), static_cast<long>(y.size()));
    print((tag + "hy").c_str(), hy.data(), static_cast<long>(hy.size()));
    print((tag + "cy").c_str(), cy.data(), static_cast<long>(cy.size()));
    if (!train) {
      print("wrong_state", cudnnRNNForward(handle, rd, fwd, dev_lengths.data(), xd, x.data(), yd, y.data(), wrong, hx.data(), hy.data(), hd, cx.data(), cy.data(),
            weight_bytes, weights.data(), work_bytes, work.data(), reserve_bytes, reserve.data()));
      print("small_workspace", cudnnRNNForward(handle, rd, fwd, dev_lengths.data(), xd, x.data(), yd, y.data(), hd, hx.data(), hy.data(), hd, cx.data(), cy.data(),
            weight_bytes, weights.data(), work_bytes - 1, work.data(), reserve_bytes, reserve.data()));
    }
  }
  print("projection", cudnnSetRNNDescriptor_v8(rd, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
        CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, input_size, hidden, hidden - 1, layers, dd, 0));
  cudnnDestroyRNNDataDescriptor(xd);
  cudnnDestroyRNNDataDescriptor(yd);
  cudnnDestroyRNNDescriptor(rd);
  cudnnDestroyDropoutDescriptor(dd);
  return cudnnDestroy(handle);
}

int onednn() {
  const int N = integer(), C = integer(), H = integer(), W = integer(), K = integer(), G = integer();
  const int R = integer(), S = integer(), pad = integer(), stride = integer(), dil = integer(), with_bias = integer();
  const int OH = (H + 2 * pad - (dil * (R - 1) + 1)) / stride + 1, OW = (W + 2 * pad - (dil * (S - 1) + 1)) / stride + 1;
  std::vector<float> x = floats(1L * N * C * H * W), w = floats(1L * K * (C / G) * R * S), b = floats(with_bias ? K : 0);
  std::vector<float> y(1L * N * K * OH * OW);
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_engine_create(&engine, dnnl_cpu, 0);
  dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  dnnl_memory_desc_t src_md, wei_md, dst_md, bias_md = nullptr;
  dnnl_dims_t src_dims = {N, C, H, W}, dst_dims = {N, K, OH, OW}, g_dims = {G, K / G, C / G, R, S}, b_dims = {K};
  dnnl_memory_desc_create_with_tag(&src_md, 4, src_dims, dnnl_f32, dnnl_nchw);
  dnnl_memory_desc_create_with_tag(&dst_md, 4, dst_dims, dnnl_f32, dnnl_nchw);
  dnnl_memory_desc_create_with_tag(&wei_md, 5, g_dims, dnnl_f32, dnnl_goihw);
  if (with_bias) dnnl_memory_desc_create_with_tag(&bias_md, 1, b_dims, dnnl_f32, dnnl_x);
  print("src_bytes", static_cast<long long>(dnnl_memory_desc_get_size(src_md)));
  dnnl_dims_t strides = {stride, stride}, dilates = {dil - 1, dil - 1}, pads = {pad, pad};
  dnnl_primitive_desc_t pd = nullptr;
  print("pd", dnnl_convolution_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, dnnl_convolution_direct, src_md, wei_md, bias_md, dst_md, strides, dilates, pads, pads, nullptr));
  dnnl_dims_t too_big = {stride + 1, stride + 1};
  dnnl_primitive_desc_t bad = nullptr;
  print("bad_pd", dnnl_convolution_forward_primitive_desc_create(&bad, engine, dnnl_forward_inference, dnnl_convolution_direct, src_md, wei_md, bias_md, dst_md, too_big, dilates, pads, pads, nullptr));
  dnnl_primitive_t prim = nullptr;
  dnnl_primitive_create(&prim, pd);
  dnnl_memory_t src_m, wei_m, dst_m, bias_m = nullptr;
  dnnl_memory_create(&src_m, src_md, engine, x.data());
  dnnl_memory_create(&wei_m, wei_md, engine, w.data());
  dnnl_memory_create(&dst_m, dst_md, engine, y.data());
  std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}};
  if (with_bias) {
    dnnl_memory_create(&bias_m, bias_md, engine, b.data());
    args.push_back({DNNL_ARG_BIAS, bias_m});
  }
  print("missing_arg", dnnl_primitive_execute(prim, stream, 2, args.data()));
  print("execute", dnnl_primitive_execute(prim, stream, static_cast<int>(args.size()), args.data()));
  print("wait", dnnl_stream_wait(stream));
  print("y", y.data(), static_cast<long>(y.size()));
  dnnl_primitive_destroy(prim);
  dnnl_primitive_desc_destroy(pd);
  for (dnnl_memory_t m : {src_m, wei_m, dst_m, bias_m}) dnnl_memory_destroy(m);
  for (dnnl_memory_desc_t m : {src_md, wei_md, dst_md, bias_md}) dnnl_memory_desc_destroy(m);
  dnnl_stream_destroy(stream);
  return dnnl_engine_destroy(engine);
}

int runtime() {
  int count = 0, device = -1;
  print("count", cudaGetDeviceCount(&count) * 100 + count);
  cudaDeviceProp prop;
  print("props", cudaGetDeviceProperties(&prop, 0));
  std::printf("name %s\n", prop.name);
  print("warp", prop.warpSize * 10000 + prop.maxThreadsPerBlock);
  print("set_bad_device", cudaSetDevice(3));
  print("peek", cudaPeekAtLastError());
  print("last", cudaGetLastError());
  print("last_again", cudaGetLastError());
  print("get_device", cudaGetDevice(&device) * 100 + device);
  void* p = nullptr;
  print("malloc", cudaMalloc(&p, 1000));
  print("aligned", reinterpret_cast<uintptr_t>(p) % 256 == 0);
  std::vector<unsigned char> host(1000, 7), back(1000, 0);
  print("h2d", cudaMemcpy(p, host.data(), 1000, cudaMemcpyHostToDevice));
  print("memset", cudaMemset(static_cast<char*>(p) + 10, 3, 5));
  cudaStream_t stream = nullptr;
  print("stream", cudaStreamCreate(&stream));
  print("d2h", cudaMemcpyAsync(back.data(), p, 1000, cudaMemcpyDeviceToHost, stream));
  print("sync", cudaStreamSynchronize(stream));
  print("copied", back[0] * 100 + back[12]);
  print("past_end", cudaMemcpy(p, host.data(), 1001, cudaMemcpyHostToDevice));
  print("host_as_device", cudaMemcpy(back.data(), host.data(), 10, cudaMemcpyDeviceToHost));
  print("bad_kind", cudaMemcpy(p, host.data(), 10, static_cast<cudaMemcpyKind>(9)));
  print("destroy", cudaStreamDestroy(stream));
  print("destroy_again", cudaStreamDestroy(stream));
  print("free", cudaFree(p));
  print("free_again", cudaFree(p));
  print("free_null", cudaFree(nullptr));
  std::printf("text %s|%s\n", cudaGetErrorString(cudaSuccess), cudaGetErrorString(cudaErrorInvalidValue));
  print("cudnn_version", static_cast<long long>(cudnnGetVersion()));
  std::printf("cudnn_text %s\n", cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM));
  return 0;
}

}  // namespace

int main() {
  char name[32] = {};
  if (std::scanf("%31s", name) != 1) return 2;
  const std::string which = name;
  if (which == "conv") return conv();
  if (which == "batch_norm") return batch_norm();
  if (which == "gemm") return gemm();
  if (which == "rnn") return rnn();
  if (which == "onednn") return onednn();
  if (which == "runtime") return runtime();
  return 2;
}
"""


@pytest.fixture(scope="module")
def vendor_driver(tmp_path_factory, vendor_objects) -> Path:
    out = tmp_path_factory.mktemp("driver")
    source = out / "driver.cpp"
    source.write_text(VENDOR_DRIVER)
    exe = out / "driver"
    _run([*CXX, "-O1", *INCLUDES, str(source), *map(str, vendor_objects), "-o", str(exe), "-lpthread"])
    return exe


def call(driver: Path, *inputs) -> dict[str, list[float]]:
    """Runs one driver case; returns each printed line as name -> numbers (or text)."""
    text = " ".join(_flatten(inputs))
    result = _run([str(driver)], input=text, timeout=60)
    values: dict[str, list] = {}
    for line in result.stdout.splitlines():
        name, _, rest = line.partition(" ")
        parts = rest.split()
        try:
            values[name] = [float(p) for p in parts]
        except ValueError:
            values[name] = [rest]
    return values


def _flatten(items) -> list[str]:
    flat: list[str] = []
    for item in items:
        if isinstance(item, (list, tuple)):
            flat.extend(_flatten(item))
        else:
            flat.append(repr(item) if isinstance(item, float) else str(item))
    return flat


def exact_floats(rng: random.Random, count: int, scale: int = 64) -> list[float]:
    """Values exactly representable in float32, so the reference sees what the driver sees."""
    return [rng.randint(-2 * scale, 2 * scale) / scale for _ in range(count)]


def assert_close(actual: list[float], expected: list[float], rel: float = 1e-5, abs_: float = 1e-6) -> None:
    assert len(actual) == len(expected)
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert math.isclose(a, e, rel_tol=rel, abs_tol=abs_), f"element {i}: {a} != {e}"


# --- plain-Python references --------------------------------------------------------------------


def conv2d_reference(x, w, n, c, h, wd, k, groups, r, s, pad, stride, dil, flip=False, bias=None):
    oh = (h + 2 * pad[0] - (dil[0] * (r - 1) + 1)) // stride[0] + 1
    ow = (wd + 2 * pad[1] - (dil[1] * (s - 1) + 1)) // stride[1] + 1
    cg, kg = c // groups, k // groups
    out = []
    for b in range(n):
        for o in range(k):
            first = (o // kg) * cg
            for y in range(oh):
                for z in range(ow):
                    total = bias[o] if bias is not None else 0.0
                    for ci in range(cg):
                        for fr in range(r):
                            for fs in range(s):
                                iy = y * stride[0] - pad[0] + fr * dil[0]
                                ix = z * stride[1] - pad[1] + fs * dil[1]
                                if 0 <= iy < h and 0 <= ix < wd:
                                    wr, ws = (r - 1 - fr, s - 1 - fs) if flip else (fr, fs)
                                    total += (
                                        x[((b * c + first + ci) * h + iy) * wd + ix]
                                        * w[((o * cg + ci) * r + wr) * s + ws]
                                    )
                    out.append(total)
    return out, oh, ow


def sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


def rnn_reference(mode, layers, dirs, input_size, hidden, batch, lengths, xs, hx, cx, weights, fill):
    """xs[t][b] vectors; weights in the documented per-(layer, direction) order with double bias."""
    gates = {0: 1, 1: 1, 2: 4, 3: 3}[mode]
    rows = gates * hidden
    max_len = len(xs)
    cursor = 0

    def take(count):
        nonlocal cursor
        block = weights[cursor : cursor + count]
        cursor += count
        return block

    def matvec(m, cols, v):
        return [sum(m[r * cols + i] * v[i] for i in range(cols)) for r in range(rows)]

    hy = [[None] * batch for _ in range(layers * dirs)]
    cy = [[None] * batch for _ in range(layers * dirs)]
    layer_in = xs
    for layer in range(layers):
        width = input_size if layer == 0 else hidden * dirs
        out = [[[0.0] * (hidden * dirs) for _ in range(batch)] for _ in range(max_len)]
        for d in range(dirs):
            w_ih, w_hh, b_ih, b_hh = take(rows * width), take(rows * hidden), take(rows), take(rows)
            state = layer * dirs + d
            for b in range(batch):
                h = list(hx[state][b])
                c = list(cx[state][b])
                steps = range(lengths[b]) if d == 0 else reversed(range(lengths[b]))
                for t in steps:
                    gi = [u + v for u, v in zip(matvec(w_ih, width, layer_in[t][b]), b_ih)]
                    gh = [u + v for u, v in zip(matvec(w_hh, hidden, h), b_hh)]
                    if mode == 2:
                        i = [sigmoid(gi[j] + gh[j]) for j in range(hidden)]
                        f = [sigmoid(gi[hidden + j] + gh[hidden + j]) for j in range(hidden)]
                        g = [math.tanh(gi[2 * hidden + j] + gh[2 * hidden + j]) for j in range(hidden)]
                        o = [sigmoid(gi[3 * hidden + j] + gh[3 * hidden + j]) for j in range(hidden)]
                        c = [f[j] * c[j] + i[j] * g[j] for j in range(hidden)]
                        h = [o[j] * math.tanh(c[j]) for j in range(hidden)]
                    elif mode == 3:
                        r_ = [sigmoid(gi[j] + gh[j]) for j in range(hidden)]
                        z = [sigmoid(gi[hidden + j] + gh[hidden + j]) for j in range(hidden)]
                        nn = [math.tanh(gi[2 * hidden + j] + r_[j] * gh[2 * hidden + j]) for j in range(hidden)]
                        h = [(1 - z[j]) * nn[j] + z[j] * h[j] for j in range(hidden)]
                    else:
                        pre = [gi[j] + gh[j] for j in range(hidden)]
                        h = [max(v, 0.0) for v in pre] if mode == 0 else [math.tanh(v) for v in pre]
                    out[t][b][d * hidden : (d + 1) * hidden] = h
                hy[state][b] = h
                cy[state][b] = c
        layer_in = out
    for b in range(batch):
        for t in range(lengths[b], max_len):
            layer_in[t][b] = [fill] * (hidden * dirs)
    assert cursor == len(weights)
    return layer_in, hy, cy


def rnn_weight_count(mode, layers, dirs, input_size, hidden):
    rows = {0: 1, 1: 1, 2: 4, 3: 3}[mode] * hidden
    return sum(
        dirs * (rows * (input_size if layer == 0 else hidden * dirs) + rows * hidden + 2 * rows)
        for layer in range(layers)
    )


# --- cuDNN ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dilation", "mode"), [(1, 1), (2, 1), (1, 0)], ids=["dilation1", "dilation2", "true-convolution"]
)
def test_cudnn_grouped_convolution_matches_the_reference(vendor_driver, dilation, mode):
    rng = random.Random(7 + dilation + 10 * mode)
    n, c, h, w, k, groups, r, s = 2, 4, 7, 6, 6, 2, 3, 3
    pad, stride, dil = (1, 1), (2, 2), (dilation, dilation)
    x = exact_floats(rng, n * c * h * w)
    wt = exact_floats(rng, k * (c // groups) * r * s)
    expected, oh, ow = conv2d_reference(x, wt, n, c, h, w, k, groups, r, s, pad, stride, dil, flip=mode == 0)
    y0 = exact_floats(rng, n * k * oh * ow)
    alpha, beta = 1.5, 0.5
    out = call(vendor_driver, "conv", n, c, h, w, k, groups, r, s, *pad, *stride, *dil, mode, alpha, beta, x, wt, y0)
    assert out["set"] == [0] and out["groups"] == [0]
    assert out["algo_status"] == [0] and out["algo_count"] == [1] and out["algo_ok"] == [1]
    assert out["workspace_status"] == [0] and out["workspace"] == [0]
    assert out["forward"] == [0]
    assert_close(out["y"], [alpha * e + beta * old for e, old in zip(expected, y0)])
    assert out["bad_shape"] == [CUDNN_STATUS_BAD_PARAM]
    assert out["null_desc"] == [CUDNN_STATUS_BAD_PARAM]
    assert out["bad_groups"] == [CUDNN_STATUS_BAD_PARAM]


def test_cudnn_batch_norm_training_and_inference(vendor_driver):
    rng = random.Random(3)
    n, c, h, w = 3, 2, 2, 3
    factor, eps = 0.1, 1e-5
    x = exact_floats(rng, n * c * h * w)
    scale, bias = exact_floats(rng, c), exact_floats(rng, c)
    running_mean, running_var = exact_floats(rng, c), [abs(v) + 0.5 for v in exact_floats(rng, c)]
    out = call(vendor_driver, "batch_norm", n, c, h, w, factor, eps, x, scale, bias, running_mean, running_var)
    assert out["derive"] == [0] and out["derived_dims"] == [4 * 10000 + 1000 + c * 100 + 11]
    assert out["train"] == [0] and out["eval"] == [0]

    count = n * h * w
    expected_y = [0.0] * len(x)
    means, invstds, new_mean, new_var = [], [], [], []
    for ch in range(c):
        idx = [((b * c + ch) * h + i) * w + j for b in range(n) for i in range(h) for j in range(w)]
        mean = sum(x[i] for i in idx) / count
        biased = sum((x[i] - mean) ** 2 for i in idx) / count
        unbiased = biased * count / (count - 1)
        invstd = 1 / math.sqrt(biased + eps)
        for i in idx:
            expected_y[i] = (x[i] - mean) * invstd * scale[ch] + bias[ch]
        means.append(mean)
        invstds.append(invstd)
        new_mean.append((1 - factor) * running_mean[ch] + factor * mean)
        new_var.append((1 - factor) * running_var[ch] + factor * unbiased)
    assert_close(out["y"], expected_y)
    assert_close(out["save_mean"], means)
    assert_close(out["save_invstd"], invstds)
    assert_close(out["running_mean"], new_mean)
    assert_close(out["running_var"], new_var)

    # Inference normalizes with the (float32) running statistics the driver now holds.
    got_mean, got_var = out["running_mean"], out["running_var"]
    expected_eval = [0.0] * len(x)
    for ch in range(c):
        for b in range(n):
            for i in range(h * w):
                at = (b * c + ch) * h * w + i
                expected_eval[at] = (x[at] - got_mean[ch]) / math.sqrt(got_var[ch] + eps) * scale[ch] + bias[ch]
    assert_close(out["y_eval"], expected_eval)
    assert out["null_scale"] == [CUDNN_STATUS_BAD_PARAM]
    assert out["half_running"] == [CUDNN_STATUS_BAD_PARAM]
    assert out["wrong_params"] == [CUDNN_STATUS_BAD_PARAM]


@pytest.mark.parametrize(
    ("mode", "layers", "dirs", "layout"),
    [(2, 2, 2, 0), (3, 1, 1, 2), (1, 1, 2, 1)],
    ids=["lstm-2layer-bidirectional-seq-major", "gru-batch-major", "tanh-bidirectional-packed"],
)
def test_cudnn_rnn_forward_matches_the_reference(vendor_driver, mode, layers, dirs, layout):
    rng = random.Random(mode * 100 + layers)
    input_size, hidden, batch, max_len = 3, 2, 2, 3
    lengths = [3, 2]
    fill = -7.0
    count = rnn_weight_count(mode, layers, dirs, input_size, hidden)
    weights = [v / 4 for v in exact_floats(rng, count)]
    xs = [[[v / 2 for v in exact_floats(rng, input_size)] for _ in range(batch)] for _ in range(max_len)]
    hx = [[exact_floats(rng, hidden) for _ in range(batch)] for _ in range(layers * dirs)]
    cx = [[exact_floats(rng, hidden) for _ in range(batch)] for _ in range(layers * dirs)]

    def offsets(b, t):  # where (t, b) lives in each layout
        if layout == 2:
            return b * max_len + t
        if layout == 1:
            return sum(sum(1 for length in lengths if length > step) for step in range(t)) + b
        return t * batch + b

    slots = max_len * batch
    flat_x = [0.0] * (slots * input_size)
    for t in range(max_len):
        for b in range(batch):
            if t < lengths[b] or layout != 1:
                at = offsets(b, t) * input_size
                flat_x[at : at + input_size] = xs[t][b]
    flat_h = [v for state in hx for row in state for v in row]
    flat_c = [v for state in cx for row in state for v in row]
    out = call(
        vendor_driver,
        "rnn",
        mode,
        layers,
        dirs,
        input_size,
        hidden,
        batch,
        max_len,
        layout,
        lengths,
        fill,
        0.0,
        count,
        flat_x,
        flat_h,
        flat_c,
        weights,
    )
    assert out["dropout"] == [0] and out["set"] == [0]
    assert out["weight_bytes"] == [4 * count]
    assert out["forward"] == [0] and out["train_forward"] == [0]
    assert out["reserve_bytes"] == [0] and out["train_reserve_bytes"][0] > 0

    ys, hy, cy = rnn_reference(mode, layers, dirs, input_size, hidden, batch, lengths, xs, hx, cx, weights, fill)
    width = hidden * dirs
    expected_y = [-99.0] * (slots * width)  # packed data has no padding slots to fill
    for t in range(max_len):
        for b in range(batch):
            if t < lengths[b] or layout != 1:
                at = offsets(b, t) * width
                expected_y[at : at + width] = ys[t][b]
    for prefix in ("", "train_"):
        assert_close(out[prefix + "y"], expected_y)
        assert_close(out[prefix + "hy"], [v for state in hy for row in state for v in row])
        if mode == 2:
            assert_close(out[prefix + "cy"], [v for state in cy for row in state for v in row])
    assert out["wrong_state"] == [CUDNN_STATUS_BAD_PARAM]
    assert out["small_workspace"] == [CUDNN_STATUS_BAD_PARAM]
    assert out["projection"] == [CUDNN_STATUS_NOT_SUPPORTED]


def test_cudnn_rnn_dropout_acts_between_layers_in_training_only(vendor_driver):
    rng = random.Random(11)
    mode, layers, dirs, input_size, hidden, batch, max_len = 2, 2, 1, 3, 4, 2, 3
    count = rnn_weight_count(mode, layers, dirs, input_size, hidden)
    inputs = (
        exact_floats(rng, max_len * batch * input_size),
        exact_floats(rng, layers * batch * hidden),
        exact_floats(rng, layers * batch * hidden),
        [v / 4 for v in exact_floats(rng, count)],
    )
    out = call(
        vendor_driver,
        "rnn",
        mode,
        layers,
        dirs,
        input_size,
        hidden,
        batch,
        max_len,
        0,
        [3, 3],
        0.0,
        0.5,
        count,
        *inputs,
    )
    assert out["dropout"] == [0] and out["forward"] == [0] and out["train_forward"] == [0]
    first_layer = batch * hidden
    # Layer 0 reads undropped input, so its final state is the same; what layer 1 sees is not.
    assert_close(out["train_hy"][:first_layer], out["hy"][:first_layer])
    assert out["train_y"] != out["y"]


# --- cuBLAS ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ta", "tb"), [(1, 0), (0, 1), (1, 1), (0, 0)], ids=["TN", "NT", "TT", "NN"])
def test_cublas_gemm_is_column_major_blas(vendor_driver, ta, tb):
    rng = random.Random(ta * 2 + tb)
    m, n, k = 3, 4, 5
    lda = (k if ta else m) + 2  # leading dimensions larger than the matrices
    ldb = (n if tb else k) + 1
    ldc = m + 3
    a = exact_floats(rng, lda * (m if ta else k))
    b = exact_floats(rng, ldb * (k if tb else n))
    c = exact_floats(rng, ldc * n)
    alpha, beta = 1.25, -0.5

    def op_a(i, inner):
        return a[inner + i * lda] if ta else a[i + inner * lda]

    def op_b(inner, j):
        return b[j + inner * ldb] if tb else b[inner + j * ldb]

    expected = list(c)
    for j in range(n):
        for i in range(m):
            expected[i + j * ldc] = (
                alpha * sum(op_a(i, inner) * op_b(inner, j) for inner in range(k)) + beta * c[i + j * ldc]
            )
    out = call(vendor_driver, "gemm", ta, tb, m, n, k, lda, ldb, ldc, alpha, beta, a, b, c)
    assert out["sgemm"] == [0] and out["dgemm"] == [0]
    assert_close(out["c"], expected)  # rows past m (padding) are untouched
    assert_close(out["c_double"], expected)
    assert out["small_lda"] == [CUBLAS_STATUS_INVALID_VALUE]
    assert out["null_handle"] == [CUBLAS_STATUS_NOT_INITIALIZED]
    assert out["status_text"] == [1]


# --- oneDNN ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dilation", [1, 2])
def test_onednn_grouped_convolution_with_bias(vendor_driver, dilation):
    rng = random.Random(5 + dilation)
    n, c, h, w, k, groups, r, s, pad, stride = 2, 4, 6, 7, 6, 2, 3, 3, 1, 2
    x, wt, bias = exact_floats(rng, n * c * h * w), exact_floats(rng, k * (c // groups) * r * s), exact_floats(rng, k)
    expected, _, _ = conv2d_reference(
        x, wt, n, c, h, w, k, groups, r, s, (pad, pad), (stride, stride), (dilation, dilation), bias=bias
    )
    out = call(vendor_driver, "onednn", n, c, h, w, k, groups, r, s, pad, stride, dilation, 1, x, wt, bias)
    assert out["src_bytes"] == [4 * n * c * h * w]
    assert out["pd"] == [0] and out["bad_pd"] == [2]  # dnnl_invalid_arguments
    assert out["missing_arg"] == [2]
    assert out["execute"] == [0] and out["wait"] == [0]
    assert_close(out["y"], expected)


# --- CUDA runtime ---------------------------------------------------------------------------------


def test_cuda_runtime_memory_streams_and_errors(vendor_driver):
    out = call(vendor_driver, "runtime")
    assert out["count"] == [1]
    assert out["props"] == [0] and out["name"] == ["Emulated CUDA device (CPU reference)"]
    assert out["warp"] == [32 * 10000 + 1024]
    # A failing call leaves a sticky error: peek keeps it, get returns and clears it.
    assert out["set_bad_device"] == [101] and out["peek"] == [101] and out["last"] == [101]
    assert out["last_again"] == [0] and out["get_device"] == [0]
    assert out["malloc"] == [0] and out["aligned"] == [1]
    assert out["h2d"] == [0] and out["memset"] == [0] and out["stream"] == [0]
    assert out["d2h"] == [0] and out["sync"] == [0] and out["copied"] == [7 * 100 + 3]
    assert out["past_end"] == [1] and out["host_as_device"] == [1]  # cudaErrorInvalidValue
    assert out["bad_kind"] == [21]  # cudaErrorInvalidMemcpyDirection
    assert out["destroy"] == [0] and out["destroy_again"] == [400]  # invalid resource handle
    assert out["free"] == [0] and out["free_again"] == [17] and out["free_null"] == [0]
    assert out["text"] == ["no error|invalid argument"]
    assert out["cudnn_version"] == [8902] and out["cudnn_text"] == ["CUDNN_STATUS_BAD_PARAM"]


# --- emulated kernels -----------------------------------------------------------------------------

KERNELS_CU = r"""
#include <cuda_runtime.h>

namespace demo {

// Tree reduction over a static __shared__ array: needs every __syncthreads.
template <typename T>
__device__ T twice(T v) { return v + v; }

template <typename T, int kThreads>
__global__ void block_sum(const T* in, T* out, int n) {
  __shared__ T partial[kThreads];
  T acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += in[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = twice(partial[0]) / 2;
}

// Reverses each block's slice through dynamic shared memory and reduces a
// row maximum with exp() in the mix, as SoftMax.cu does.
__global__ void reverse_and_max(float* data, float* row_max) {
  extern __shared__ unsigned char smem_raw[];
  float* slice = reinterpret_cast<float*>(smem_raw);
  const int at = blockIdx.x * blockDim.x + threadIdx.x;
  slice[threadIdx.x] = data[at];
  __syncthreads();
  data[at] = slice[blockDim.x - 1 - threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float best = -INFINITY;
    for (unsigned i = 0; i < blockDim.x; ++i) best = max(best, log(exp(slice[i])));
    row_max[blockIdx.x] = best;
  }
}

__global__ void fill_index(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(i);
}

__global__ void count_launch() {}

}  // namespace demo

extern "C" __attribute__((no_instrument_function)) void* block_sum_address() {
  return reinterpret_cast<void*>(&demo::block_sum<float, 64>);
}

// The host side of the test, launch sites like those in ATen's .cu files.
// Errors are read by the caller (cudaGetLastError is itself a traced call).
extern "C" __attribute__((no_instrument_function)) void launch_block_sum(const float* in, float* out, int n, int blocks) {
  demo::block_sum<float, 64><<<blocks, 64, 0, nullptr>>>(in,
                                                         out,
                                                         n);
}

extern "C" __attribute__((no_instrument_function)) void launch_reverse(float* data, float* row_max, int blocks, int threads) {
  demo::reverse_and_max<<<dim3(blocks), dim3(threads), threads * sizeof(float)>>>(data, row_max);
}

extern "C" __attribute__((no_instrument_function)) void launch_fill(float* out, int n) {
  demo::fill_index<<<(n + 255) / 256, 256>>>(out, n);
}

extern "C" __attribute__((no_instrument_function)) void launch_invalid() {
  demo::count_launch<<<1, 2048>>>();
}
"""

KERNEL_DRIVER = r"""
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <vector>

// The trace recorder: the executable's definitions win over glibc's no-ops.
struct Event { bool enter; void* fn; void* site; };
static Event g_events[64];
static int g_event_count = 0;
static bool g_recording = false;
extern "C" {
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void* fn, void* site) {
  if (g_recording && g_event_count < 64) g_events[g_event_count++] = {true, fn, site};
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void* fn, void* site) {
  if (g_recording && g_event_count < 64) g_events[g_event_count++] = {false, fn, site};
}
void* block_sum_address();
void launch_block_sum(const float* in, float* out, int n, int blocks);
void launch_reverse(float* data, float* row_max, int blocks, int threads);
void launch_fill(float* out, int n);
void launch_invalid();
}

int main() {
  const int n = 1000, blocks = 3;
  float* in = nullptr;
  float* out = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&in), n * sizeof(float));
  cudaMalloc(reinterpret_cast<void**>(&out), blocks * sizeof(float));
  double expected = 0;
  for (int i = 0; i < n; ++i) { in[i] = static_cast<float>(i % 17) - 4.0f; expected += in[i]; }

  g_recording = true;
  launch_block_sum(in, out, n, blocks);
  g_recording = false;
  std::printf("sum_status %d\n", static_cast<int>(cudaGetLastError()));
  std::printf("sum %.9g %.9g\n", static_cast<double>(out[0] + out[1] + out[2]), expected);
  int pairs = 0, kernel_enters = 0, kernel_exits = 0, sites = 0;
  for (int i = 0; i < g_event_count; ++i) {
    const bool kernel = g_events[i].fn == block_sum_address();
    kernel_enters += g_events[i].enter && kernel;
    kernel_exits += !g_events[i].enter && kernel;
    pairs += g_events[i].enter;
    sites += g_events[i].site != nullptr;
  }
  std::printf("trace %d %d %d %d %d\n", g_event_count, pairs, kernel_enters, kernel_exits, sites);
  std::printf("order %d\n", g_event_count == 2 && g_events[0].enter && !g_events[1].enter);

  const int rows = 4, threads = 128;
  std::vector<float> host(rows * threads);
  float* data = nullptr;
  float* row_max = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&data), host.size() * sizeof(float));
  cudaMalloc(reinterpret_cast<void**>(&row_max), rows * sizeof(float));
  for (int i = 0; i < rows * threads; ++i) data[i] = static_cast<float>((i * 37) % 101) / 8.0f;
  host.assign(data, data + rows * threads);
  launch_reverse(data, row_max, rows, threads);
  std::printf("reverse_status %d\n", static_cast<int>(cudaGetLastError()));
  int reversed = 1;
  for (int r = 0; r < rows; ++r)
    for (int t = 0; t < threads; ++t)
      reversed &= data[r * threads + t] == host[r * threads + threads - 1 - t];
  std::printf("reversed %d\n", reversed);
  std::printf("row_max");
  for (int r = 0; r < rows; ++r) std::printf(" %.9g", static_cast<double>(row_max[r]));
  std::printf("\n");

  g_recording = true;
  g_event_count = 0;
  launch_invalid();
  g_recording = false;
  std::printf("invalid_status %d\n", static_cast<int>(cudaGetLastError()));
  std::printf("invalid_events %d\n", g_event_count);
  std::printf("after_invalid %d\n", static_cast<int>(cudaGetLastError()));

  // Timing: a conv-sized elementwise grid (2x8x16x16) and the reduction.
  const int elements = 2 * 8 * 16 * 16;
  float* filled = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&filled), elements * sizeof(float));
  const auto start = std::chrono::steady_clock::now();
  for (int repeat = 0; repeat < 10; ++repeat) {
    launch_fill(filled, elements);
    launch_block_sum(in, out, n, 8);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("fill_last %.9g\n", static_cast<double>(filled[elements - 1]));
  std::printf("ms_per_pair %.6f\n", ms / 10);
  return 0;
}
"""


@pytest.fixture(scope="module")
def kernel_run(tmp_path_factory, vendor_objects) -> dict[str, list[float]]:
    out = tmp_path_factory.mktemp("kernels")
    translated = out / "kernels.cpp"
    translated.write_text(translate(KERNELS_CU))
    driver = out / "driver.cpp"
    driver.write_text(KERNEL_DRIVER)
    exe = out / "kernels"
    kernel_obj = out / "kernels.o"
    _run(
        [
            *CXX,
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-finstrument-functions",
            "-include",
            cuda_emulation.EMULATION_HEADER,
            *INCLUDES,
            "-c",
            str(translated),
            "-o",
            str(kernel_obj),
        ]
    )
    _run([*CXX, "-O1", *INCLUDES, str(driver), str(kernel_obj), *map(str, vendor_objects), "-o", str(exe), "-lpthread"])
    result = _run([str(exe)], timeout=60)
    values: dict[str, list] = {}
    for line in result.stdout.splitlines():
        name, _, rest = line.partition(" ")
        values[name] = [float(p) for p in rest.split()]
    return values


def test_emulated_block_reduction_with_shared_memory_and_syncthreads(kernel_run):
    assert kernel_run["sum_status"] == [0]
    total, expected = kernel_run["sum"]
    assert total == expected


def test_a_kernel_launch_is_one_traced_frame_named_after_the_kernel(kernel_run):
    events, pairs, kernel_enters, kernel_exits, with_site = kernel_run["trace"]
    # 3 blocks x 64 threads ran, yet only the launch itself is traced: no per-thread kernel call,
    # no __device__ helper, no emulation internals.
    assert (events, pairs, kernel_enters, kernel_exits, with_site) == (2, 1, 1, 1, 2)
    assert kernel_run["order"] == [1]


def test_dynamic_shared_memory_is_sized_by_the_launch(kernel_run):
    assert kernel_run["reverse_status"] == [0] and kernel_run["reversed"] == [1]
    expected = [max(((r * 128 + t) * 37) % 101 / 8.0 for t in range(128)) for r in range(4)]
    assert_close(kernel_run["row_max"], expected)


def test_an_invalid_launch_sets_the_last_error_and_runs_nothing(kernel_run):
    assert kernel_run["invalid_status"] == [9]  # cudaErrorInvalidConfiguration
    assert kernel_run["invalid_events"] == [0]
    assert kernel_run["after_invalid"] == [0]


def test_emulated_launches_take_milliseconds(kernel_run):
    assert kernel_run["fill_last"] == [2 * 8 * 16 * 16 - 1]
    assert kernel_run["ms_per_pair"][0] < 50


# --- instrumentation ------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump is not installed")
def test_only_public_entry_points_are_instrumented(vendor_objects):
    public = re.compile(r"^(cudnn|cublas|cuda|dnnl_)[A-Za-z0-9_]*$")
    for obj in vendor_objects:
        listing = _run(["objdump", "-dr", "-C", "--no-show-raw-insn", str(obj)]).stdout
        instrumented, function = set(), None
        for line in listing.splitlines():
            header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
            if header:
                function = header.group(1)
            elif "__cyg_profile_func_enter" in line and function:
                instrumented.add(function)
        assert instrumented, obj
        assert sorted(f for f in instrumented if not public.match(f)) == [], obj


# --- translate_cuda_source ------------------------------------------------------------------------


def test_translation_rewrites_a_template_kernel_launch():
    source = "  max_pool_forward_nchw<float, float><<<grid, threads, 0, stream>>>(count, in);\n"
    assert (
        translate(source)
        == "  ::cuda_emulation::launch(max_pool_forward_nchw<float, float>, grid, threads, 0, stream)(count, in);\n"
    )


def test_translation_keeps_multi_line_arguments_and_line_numbers():
    source = (
        "void f() {\n"
        "  ns::k<T, std::pair<int, int>><<<dim3(a, b),\n"
        "      block, smem>>>(x,\n"
        "                    y, z);\n"
        "  C10_CUDA_KERNEL_LAUNCH_CHECK();\n"
        "}\n"
    )
    out = translate(source)
    assert out.count("\n") == source.count("\n")
    lines = out.splitlines()
    assert lines[1] == "  ::cuda_emulation::launch(ns::k<T, std::pair<int, int>>, dim3(a, b),"
    assert lines[2] == "      block, smem)(x,"
    assert lines[3] == "                    y, z);"
    assert lines[4] == "  C10_CUDA_KERNEL_LAUNCH_CHECK();"


def test_translation_handles_zero_arguments_and_qualified_names():
    assert translate("::k<<<1, 1>>>();") == "::cuda_emulation::launch(::k, 1, 1)();"
    assert translate("a::template b<int><<<g, t>>>( );") == "::cuda_emulation::launch(a::template b<int>, g, t)( );"


def test_translation_rewrites_dynamic_shared_memory_and_dispatch_registration():
    source = (
        "  extern __shared__ __align__(16) unsigned char smem_raw[];\n"
        "REGISTER_DISPATCH(relu_stub, &relu_kernel_cuda);\n"
    )
    assert translate(source) == (
        "  unsigned char* const smem_raw = reinterpret_cast<unsigned char*>(::cuda_emulation::dynamic_shared_memory());\n"
        "REGISTER_CUDA_DISPATCH(relu_stub, &relu_kernel_cuda);\n"
    )


def test_translation_leaves_comments_strings_and_plain_shifts_alone():
    source = (
        '// k<<<1, 1>>>();\n/* extern __shared__ float s[]; */\nconst char* s = "k<<<1,1>>>()";\n'
        "int v = a << 2; bool w = b >> 3 > c;\n"
    )
    assert translate(source) == source


def test_translation_reports_an_unterminated_launch():
    with pytest.raises(cuda_emulation.CudaTranslationError, match="line 2"):
        translate("\nk<<<1, 2;\n")


def test_every_sample_cu_file_translates_and_compiles(tmp_path):
    """All of ATen's .cu files build for the emulation. One unity translation unit keeps this fast
    (the ATen headers are parsed once); if it fails, each file is compiled alone to name the culprit."""
    sources = sorted((SAMPLE_ROOT / "aten/src/ATen/native/cuda").glob("*.cu"))
    assert len(sources) >= 9
    parts = []
    for source in sources:
        text = source.read_text()
        translated = translate(text)
        assert translated.count("\n") == text.count("\n"), source.name
        assert "<<<" not in translated and "extern __shared__" not in translated, source.name
        parts.append(f'#line 1 "{source}"\n{translated}\n')

    def compile_unit(name: str, text: str) -> str:
        target = tmp_path / f"{name}.cpp"
        target.write_text(text)
        command = [
            *CXX,
            "-c",
            "-finstrument-functions",
            "-include",
            cuda_emulation.EMULATION_HEADER,
            *INCLUDES,
            str(target),
            "-o",
            str(target.with_suffix(".o")),
        ]
        result = subprocess.run(command, capture_output=True, text=True)
        return "" if result.returncode == 0 else result.stderr

    if compile_unit("all_cu_files", "".join(parts)) == "":
        return
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        errors = pool.map(compile_unit, [s.stem for s in sources], parts)
        failures = [f"{source.name}:\n{error}" for source, error in zip(sources, errors) if error]
    assert failures == []
