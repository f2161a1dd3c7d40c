"""The bundled reference runtime: sample_repo's torch builds its native library, imports,
and computes the same numbers as plain-Python references, on cpu and on the emulated cuda.

The library is built once per session, into $TORCH_EXTENSIONS_DIR when set, else the
default cache (~/.cache/torch_extensions), where a later session finds it. The sample torch
is imported in-process and every torch* module is removed again afterwards (an installed
PyTorch is put back), so nothing leaks into other tests.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.folders import SAMPLE_ROOT

TOL = 1e-4
DEVICES = ("cpu", "cuda")


def _compiler() -> str | None:
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name.split()[0]):
            return name
    return None


pytestmark = pytest.mark.skipif(
    _compiler() is None, reason="no C++ compiler on this machine (Debian/Ubuntu: apt-get install g++)"
)


@pytest.fixture(scope="session")
def torch() -> Iterator[Any]:
    saved_modules = {
        name: module
        for name, module in sys.modules.items()
        if name == "torch" or name.startswith(("torch.", "torchgen"))
    }
    for name in saved_modules:
        del sys.modules[name]
    sys.path.insert(0, str(SAMPLE_ROOT))
    try:
        import torch as sample_torch

        assert Path(sample_torch.__file__).resolve().parent == SAMPLE_ROOT / "torch"
        yield sample_torch
    finally:
        sys.path.remove(str(SAMPLE_ROOT))
        for name in [n for n in sys.modules if n == "torch" or n.startswith(("torch.", "torchgen"))]:
            del sys.modules[name]
        sys.modules.update(saved_modules)


@pytest.fixture(autouse=True)
def _fresh_state(request: pytest.FixtureRequest) -> Iterator[None]:
    if "torch" in request.fixturenames:
        torch = request.getfixturevalue("torch")
        torch.manual_seed(0)
        torch.backends.cudnn.enabled = True
        torch._C._set_cudnn_enabled(True)
        torch._C._set_mkldnn_enabled(True)
    yield


# ------------------------------------------------------------------ plain-Python references


def zeros(*shape: int) -> Any:
    if len(shape) == 1:
        return [0.0] * shape[0]
    return [zeros(*shape[1:]) for _ in range(shape[0])]


def ref_conv2d(x, w, b, stride, padding, dilation, groups):
    n, h, wd = len(x), len(x[0][0]), len(x[0][0][0])
    c_out, c_per, kh, kw = len(w), len(w[0]), len(w[0][0]), len(w[0][0][0])
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out_per = c_out // groups
    out = zeros(n, c_out, oh, ow)
    for i in range(n):
        for o in range(c_out):
            g = o // out_per
            for y in range(oh):
                for z in range(ow):
                    acc = b[o] if b is not None else 0.0
                    for ci in range(c_per):
                        for p in range(kh):
                            for q in range(kw):
                                iy = y * stride[0] - padding[0] + p * dilation[0]
                                iz = z * stride[1] - padding[1] + q * dilation[1]
                                if 0 <= iy < h and 0 <= iz < wd:
                                    acc += x[i][g * c_per + ci][iy][iz] * w[o][ci][p][q]
                    out[i][o][y][z] = acc
    return out


def ref_linear(x, w, b):
    return [[sum(xi[k] * wj[k] for k in range(len(xi))) + (b[j] if b else 0.0) for j, wj in enumerate(w)] for xi in x]


def ref_batch_norm(x, mean, var, weight, bias, eps):
    return [
        [
            [[(v - mean[c]) / math.sqrt(var[c] + eps) * weight[c] + bias[c] for v in row] for row in plane]
            for c, plane in enumerate(sample)
        ]
        for sample in x
    ]


def ref_channel_stats(x):
    """Per channel: (mean, biased variance, unbiased variance) over batch and space."""
    stats = []
    for c in range(len(x[0])):
        values = [v for sample in x for row in sample[c] for v in row]
        mean = sum(values) / len(values)
        sq = sum((v - mean) ** 2 for v in values)
        stats.append((mean, sq / len(values), sq / (len(values) - 1)))
    return stats


def ref_softmax_dim1(x):
    out = []
    for sample in x:  # [C][L]
        columns = list(zip(*sample))
        soft_columns = []
        for col in columns:
            m = max(col)
            e = [math.exp(v - m) for v in col]
            s = sum(e)
            soft_columns.append([v / s for v in e])
        out.append([list(row) for row in zip(*soft_columns)])
    return out


def ref_max_pool2d(x, k, s, p):
    out = []
    for sample in x:
        planes = []
        for plane in sample:
            h, w = len(plane), len(plane[0])
            oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
            planes.append(
                [
                    [
                        max(
                            plane[iy][iz]
                            for iy in range(y * s - p, y * s - p + k)
                            for iz in range(z * s - p, z * s - p + k)
                            if 0 <= iy < h and 0 <= iz < w
                        )
                        for z in range(ow)
                    ]
                    for y in range(oh)
                ]
            )
        out.append(planes)
    return out


def relu_ref(x):
    if isinstance(x, list):
        return [relu_ref(v) for v in x]
    return max(x, 0.0)


def flat(x) -> list[float]:
    if isinstance(x, list):
        return [v for item in x for v in flat(item)]
    return [x]


def assert_close(actual, expected, tol: float = TOL) -> None:
    a, e = flat(actual), flat(expected)
    assert len(a) == len(e)
    worst = max((abs(p - q) for p, q in zip(a, e)), default=0.0)
    assert worst <= tol, f"max abs difference {worst}"


# ------------------------------------------------------------------ layers on both devices


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_grouped_padded_strided(torch, device, bias):
    conv = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, bias=bias).to(device)
    x = torch.randn(2, 4, 7, 6, device=device)
    y = conv(x)
    assert y.device.type == device and tuple(y.shape) == (2, 6, 4, 3)
    b = conv.bias.tolist() if bias else None
    assert_close(y.tolist(), ref_conv2d(x.tolist(), conv.weight.tolist(), b, (2, 2), (1, 1), (1, 1), 2))


@pytest.mark.parametrize("device", DEVICES)
def test_conv2d_dilated_with_tuple_padding(torch, device):
    conv = torch.nn.Conv2d(4, 6, (3, 2), padding=(2, 1), dilation=2).to(device)
    x = torch.randn(2, 4, 6, 5, device=device)
    expected = ref_conv2d(x.tolist(), conv.weight.tolist(), conv.bias.tolist(), (1, 1), (2, 1), (2, 2), 1)
    assert_close(conv(x).tolist(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_conv2d_string_paddings(torch, device):
    same = torch.nn.Conv2d(4, 6, (3, 4), padding="same").to(device)
    valid = torch.nn.Conv2d(4, 6, 3, padding="valid").to(device)
    x = torch.randn(2, 4, 5, 6, device=device)
    # 'same' with an even kernel pads one more element on the right / bottom
    padded = [
        [[[0.0] * 1 + row + [0.0] * 2 for row in [[0.0] * 6, *plane, [0.0] * 6]] for plane in s] for s in x.tolist()
    ]
    expected = ref_conv2d(padded, same.weight.tolist(), same.bias.tolist(), (1, 1), (0, 0), (1, 1), 1)
    assert tuple(same(x).shape) == (2, 6, 5, 6)
    assert_close(same(x).tolist(), expected)
    assert_close(
        valid(x).tolist(), ref_conv2d(x.tolist(), valid.weight.tolist(), valid.bias.tolist(), (1, 1), (0, 0), (1, 1), 1)
    )


@pytest.mark.parametrize("device", DEVICES)
def test_linear(torch, device):
    linear = torch.nn.Linear(5, 4).to(device)
    x = torch.randn(3, 5, device=device)
    assert_close(linear(x).tolist(), ref_linear(x.tolist(), linear.weight.tolist(), linear.bias.tolist()))
    no_bias = torch.nn.Linear(5, 4, bias=False).to(device)
    batched = torch.randn(2, 3, 5, device=device)
    expected = [ref_linear(rows, no_bias.weight.tolist(), None) for rows in batched.tolist()]
    assert_close(no_bias(batched).tolist(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_batch_norm_training_normalizes_with_batch_stats_and_updates_running_stats(torch, device):
    bn = torch.nn.BatchNorm2d(3, momentum=0.2).to(device)
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)
    x = torch.randn(2, 3, 4, 5, device=device)
    y = bn(x)
    stats = ref_channel_stats(x.tolist())
    expected = ref_batch_norm(
        x.tolist(), [s[0] for s in stats], [s[1] for s in stats], bn.weight.tolist(), bn.bias.tolist(), 1e-5
    )
    assert_close(y.tolist(), expected)
    assert_close(bn.running_mean.tolist(), [0.2 * s[0] for s in stats])
    assert_close(bn.running_var.tolist(), [0.8 + 0.2 * s[2] for s in stats])
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype == torch.int64
    bn(x)
    assert bn.num_batches_tracked.item() == 2
    assert {t.device.type for t in (y, bn.running_mean, bn.running_var, bn.num_batches_tracked)} == {device}


@pytest.mark.parametrize("device", DEVICES)
def test_batch_norm_eval_uses_running_stats(torch, device):
    bn = torch.nn.BatchNorm2d(3).to(device)
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)
    bn.eval()
    x = torch.randn(2, 3, 3, 3, device=device)
    before = bn.running_mean.tolist()
    expected = ref_batch_norm(
        x.tolist(), bn.running_mean.tolist(), bn.running_var.tolist(), bn.weight.tolist(), bn.bias.tolist(), 1e-5
    )
    assert_close(bn(x).tolist(), expected)
    assert bn.running_mean.tolist() == before and bn.num_batches_tracked.item() == 0


@pytest.mark.parametrize("device", DEVICES)
def test_relu_and_softmax(torch, device):
    x = torch.randn(2, 4, 3, device=device)
    assert_close(torch.nn.ReLU()(x).tolist(), relu_ref(x.tolist()))
    assert_close(torch.nn.Softmax(dim=1)(x).tolist(), ref_softmax_dim1(x.tolist()))
    inplace = x.clone()
    assert torch.nn.ReLU(inplace=True)(inplace) is inplace
    assert_close(inplace.tolist(), relu_ref(x.tolist()))


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool2d(torch, device):
    x = torch.randn(2, 3, 7, 6, device=device)
    y = torch.nn.MaxPool2d(3, stride=2, padding=1)(x)
    assert tuple(y.shape) == (2, 3, 4, 3)
    assert_close(y.tolist(), ref_max_pool2d(x.tolist(), 3, 2, 1))
    ceil = torch.nn.MaxPool2d(2, ceil_mode=True)(x)
    assert tuple(ceil.shape) == (2, 3, 4, 3)
    out, indices = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
    assert indices.dtype == torch.int64 and tuple(out.shape) == tuple(indices.shape) == (2, 3, 3, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_with_padding_idx(torch, device):
    emb = torch.nn.Embedding(10, 3, padding_idx=2).to(device)
    idx = torch.tensor([[0, 2, 9], [4, 2, 1]], device=device)
    assert idx.dtype == torch.int64
    table = emb.weight.tolist()
    assert table[2] == [0.0, 0.0, 0.0]
    out = emb(idx)
    assert tuple(out.shape) == (2, 3, 3) and out.device.type == device
    assert_close(out.tolist(), [[table[i] for i in row] for row in idx.tolist()])


@pytest.mark.parametrize("device", DEVICES)
def test_dropout_train_zeroes_with_probability_p_and_scales_the_rest(torch, device):
    p = 0.3
    drop = torch.nn.Dropout(p)
    x = torch.randn(20000, device=device)
    torch.manual_seed(1234)
    y = drop(x)
    values, inputs = y.tolist(), x.tolist()
    zeros_ = 0
    for v, u in zip(values, inputs):
        if v == 0.0:
            zeros_ += 1
        else:
            assert abs(v - u / (1 - p)) <= TOL
    assert abs(zeros_ / len(values) - p) < 0.02
    torch.manual_seed(1234)
    assert drop(x).tolist() == values  # the seed decides the mask
    drop.eval()
    assert drop(x) is x


@pytest.mark.parametrize("device", DEVICES)
def test_sequential_of_several_layers(torch, device):
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(3, stride=2, padding=1),
    ).to(device)
    model.eval()
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.2, 0.2)
    x = torch.randn(2, 3, 6, 6, device=device)
    conv, bn = model[0], model[1]
    h = ref_conv2d(x.tolist(), conv.weight.tolist(), conv.bias.tolist(), (1, 1), (1, 1), (1, 1), 1)
    h = ref_batch_norm(h, bn.running_mean.tolist(), bn.running_var.tolist(), bn.weight.tolist(), bn.bias.tolist(), 1e-5)
    expected = ref_max_pool2d(relu_ref(h), 3, 2, 1)
    with torch.no_grad():
        y = model(x)
    assert_close(y.tolist(), expected)
    head = torch.nn.Sequential(
        torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2), torch.nn.Softmax(dim=1)
    ).to(device)
    v = torch.randn(3, 6, device=device)
    a = relu_ref(ref_linear(v.tolist(), head[0].weight.tolist(), head[0].bias.tolist()))
    b = ref_linear(a, head[2].weight.tolist(), head[2].bias.tolist())
    assert_close(head(v).tolist(), [[math.exp(u) / sum(math.exp(w) for w in row) for u in row] for row in b])


def test_both_devices_give_the_same_numbers(torch):
    model = torch.nn.Sequential(
        torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2),
        torch.nn.BatchNorm2d(6),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
    )
    x = torch.randn(2, 4, 9, 9)
    y_cpu = model(x).tolist()
    running_var_cpu = model[1].running_var.tolist()
    model[1].reset_running_stats()
    model.cuda()
    assert model[0].weight.is_cuda and model[1].running_mean.is_cuda
    y_cuda = model(x.cuda())
    assert y_cuda.is_cuda
    assert_close(y_cuda.tolist(), y_cpu)
    assert_close(model[1].running_var.tolist(), running_var_cpu)
    model.cpu()
    assert not model[0].weight.is_cuda and not model[1].running_var.is_cuda


# ------------------------------------------------------------------ the dispatch follows the yaml


def test_kernels_are_picked_by_the_device_of_the_arguments(torch):
    x = torch.randn(1, 1, 4, 4)
    w = torch.randn(1, 1, 3, 3)
    vf = torch._C._VariableFunctions
    with pytest.raises(
        RuntimeError,
        match=r"Could not run 'aten::cudnn_convolution' with arguments from the 'CPU' backend\. "
        r"'aten::cudnn_convolution' is only available for these backends: \[CUDA\]",
    ):
        vf.cudnn_convolution(x, w, [0, 0], [1, 1], [1, 1], 1, False, False, False)
    out = vf.cudnn_convolution(x.cuda(), w.cuda(), [0, 0], [1, 1], [1, 1], 1, False, False, False)
    assert out.is_cuda and tuple(out.shape) == (1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        vf.cudnn_convolution(x.cuda(), w, [0, 0], [1, 1], [1, 1], 1, False, False, False)


def test_dilated_convolution_reaches_cudnn_on_cuda_and_onednn_on_cpu(torch):
    """The backend is chosen in C++ (_convolution), from the context flags: without cuDNN
    (cuda) or oneDNN (cpu), a dilated convolution falls to SlowDilated2d, which the sample
    tree does not implement."""
    conv = torch.nn.Conv2d(2, 2, 3, dilation=2)
    x = torch.randn(1, 2, 6, 6)
    for device, switch in (("cuda", torch._C._set_cudnn_enabled), ("cpu", torch._C._set_mkldnn_enabled)):
        conv.to(device)
        conv(x.to(device))
        switch(False)
        try:
            with pytest.raises(RuntimeError, match="convolution backend SlowDilated2d is not implemented"):
                conv(x.to(device))
        finally:
            switch(True)


def test_a_bad_call_raises_runtime_error_with_the_message(torch):
    linear = torch.nn.Linear(5, 4)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x6 and 5x4\)"):
        torch.addmm(linear.bias, torch.randn(3, 6), linear.weight.t())
    with pytest.raises(RuntimeError, match="linear: mat1 and mat2 shapes cannot be multiplied"):
        linear(torch.randn(3, 6))
    with pytest.raises(RuntimeError, match="Given groups=2, weight of size"):
        torch.nn.functional.conv2d(torch.randn(1, 3, 5, 5), torch.randn(4, 2, 3, 3), groups=2)
    with pytest.raises(TypeError, match=r"conv2d\(\) received an invalid combination of arguments"):
        torch.conv2d(torch.randn(1, 1, 3, 3), "weight")


# ------------------------------------------------------------------ the binding layer


def test_bindings_are_named_like_the_stubs(torch):
    for fn, owner, name in (
        (torch.conv2d, "_VariableFunctions", "conv2d"),
        (torch._C._nn.linear, "_nn", "linear"),
        (torch.Tensor.relu, "TensorBase", "relu"),
        (torch.nn.functional.pad, "_nn", "pad"),
    ):
        code = fn.__code__
        assert (code.co_qualname, code.co_name, fn.__globals__["__name__"]) == (f"{owner}.{name}", name, "torch._C")
    assert torch.nn.functional.conv2d is torch._C._VariableFunctions.conv2d
    assert Path(torch._C._library_path).is_file()
    manifest = json.loads((Path(torch._C._library_path).parent / "generated" / "manifest.json").read_text())
    names = {(o["name"], o["overload_name"]) for o in manifest["operators"]}
    assert len(names) == 40 and ("conv2d", "padding") in names and ("add", "out") in names


def test_overloads_out_arguments_and_numbers(torch):
    x = torch.randn(2, 3)
    y = torch.randn(2, 3)
    out = torch.empty(2, 3)
    assert torch.add(x, y, alpha=2, out=out) is out
    assert_close(out.tolist(), [[a + 2 * b for a, b in zip(r, s)] for r, s in zip(x.tolist(), y.tolist())])
    assert_close((1 - x).tolist(), [[1 - a for a in r] for r in x.tolist()])
    assert_close((x + 1).tolist(), [[a + 1 for a in r] for r in x.tolist()])
    counter = torch.zeros((), dtype=torch.long)
    assert torch.add(counter, 1).dtype == torch.int64
    _values, _indices = torch._C._nn.max_pool2d_with_indices(torch.randn(1, 1, 4, 4), 2)
    v_out, i_out = torch.empty(1, 1, 2, 2), torch.empty(1, 1, 2, 2, dtype=torch.long)
    assert torch._C._nn.max_pool2d_with_indices(torch.randn(1, 1, 4, 4), 2, out=(v_out, i_out)) == (v_out, i_out)
    assert x.softmax(1).shape == x.shape and x.t().shape == (3, 2)


def test_tensors_factories_and_devices(torch):
    t = torch.tensor([[1, 2], [3, 4]])
    assert t.dtype == torch.int64 and t.tolist() == [[1, 2], [3, 4]] and t[1, 0].item() == 3
    f = torch.tensor([1.5, -2.0], device="cuda")
    assert f.dtype == torch.float32 and f.device == torch.device("cuda:0") and f.is_cuda and f.tolist() == [1.5, -2.0]
    assert f.cpu().device == torch.device("cpu") and f.to("cpu").tolist() == [1.5, -2.0]
    assert f.to(torch.int64).tolist() == [1, -2]
    assert torch.zeros(2, 3, device="cuda").tolist() == [[0.0] * 3] * 2
    assert torch.ones((2,), dtype=torch.float64).dtype == torch.float64
    assert torch.full((2, 2), 7).tolist() == [[7, 7], [7, 7]]
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4]
    e = torch.empty(2, 3, device="cuda", requires_grad=True)
    assert e.requires_grad and e.shape == torch.Size([2, 3]) and e.stride() == (3, 1)
    torch.manual_seed(7)
    a = torch.randn(4).tolist()
    torch.manual_seed(7)
    assert torch.randn(4).tolist() == a
    r = torch.rand(1000).tolist()
    assert min(r) >= 0.0 and max(r) < 1.0
    m = torch.arange(12).reshape(3, 4)
    assert m.t().tolist() == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]
    assert m[:, 1:3].tolist() == [[1, 2], [5, 6], [9, 10]] and not m[:, 1:3].is_contiguous()
    assert m.view(2, 6)[1].tolist() == [6, 7, 8, 9, 10, 11]
    assert torch.device("cuda", 0) == torch.device("cuda:0") and str(torch.device("cuda:0")) == "cuda:0"
    assert torch._C._cuda_getDeviceCount() >= 1 and torch.backends.cudnn.is_available()
    assert isinstance(torch.backends.cudnn.version(), int) and torch._C._has_mkldnn


def test_modules_move_between_devices_and_switch_modes(torch):
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2), torch.nn.Dropout(0.5))
    assert {p.device.type for p in model.parameters()} == {"cpu"}
    model.to("cuda")
    assert {p.device.type for p in model.parameters()} == {"cuda"}
    assert all(type(p).__name__ == "Parameter" and p.requires_grad for p in model.parameters())
    assert model[1].running_mean.is_cuda and model[1].num_batches_tracked.dtype == torch.int64
    model.eval()
    assert not model.training and not model[2].training
    model.train()
    assert model[2].training
    model.cpu()
    assert {p.device.type for p in model.parameters()} == {"cpu"}
    with torch.no_grad():
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


# ------------------------------------------------------------------ building


def _toy_spec(cpp_extension, root: Path, **kwargs: Any):
    return cpp_extension.BuildSpec(
        name="toy",
        root=root,
        sources=tuple(sorted(p.resolve() for p in root.glob("*.cpp"))),
        include_dirs=(root.resolve(),),
        headers=tuple(sorted(p.resolve() for p in root.glob("*.h"))),
        **kwargs,
    )


def test_the_library_hash_covers_sources_headers_yaml_generator_and_flags(torch, tmp_path, monkeypatch):
    from torch._extension import loader
    from torch.utils import cpp_extension

    tree = tmp_path / "tree"
    for folder in ("aten", "c10", "torch/csrc", "torch/utils", "torch/_extension", "torchgen", "third_party"):
        shutil.copytree(SAMPLE_ROOT / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SAMPLE_ROOT / "torch/nn/functional.py", tree / "functional.py")

    def path() -> Path:
        return cpp_extension.library_path(loader.build_spec(tree), tmp_path / "ext")

    for name in ("TORCH_EXTRA_CFLAGS", "TORCH_EXTRA_LDFLAGS", "TORCH_EXTRA_SOURCES"):
        monkeypatch.delenv(name, raising=False)

    first = path()
    assert path() == first and first.parent.name.startswith("_C_")
    seen = {first}
    edits = [
        "aten/src/ATen/native/Activation.cpp",  # a source
        "aten/src/ATen/native/cuda/Activation.cu",  # a CUDA source
        "c10/core/TensorImpl.h",  # a header
        "aten/src/ATen/native/native_functions.yaml",  # the operators
        "torchgen/gen.py",  # the generator
        "third_party/cuda/src/cudnn.cpp",  # a vendor reference library
    ]
    for relative in edits:
        with open(tree / relative, "a", encoding="utf-8") as handle:
            handle.write("\n// edited\n" if not relative.endswith((".py", ".yaml")) else "\n# edited\n")
        assert path() not in seen, relative
        seen.add(path())
    monkeypatch.setenv("TORCH_EXTRA_CFLAGS", "-DEXTRA=1")
    assert path() not in seen
    seen.add(path())
    monkeypatch.setenv("TORCH_EXTRA_LDFLAGS", "-Wl,-Bsymbolic")
    assert path() not in seen
    seen.add(path())
    (tree / "functional.py").write_text("# python files are not part of the library\n")
    assert path() in seen


def test_one_changed_source_recompiles_one_object_and_relinks(torch, tmp_path, monkeypatch):
    from torch.utils import cpp_extension

    root = tmp_path / "toy"
    root.mkdir()
    (root / "value.h").write_text("#pragma once\nint value();\n")
    (root / "a.cpp").write_text('#include "value.h"\nextern "C" int toy_a() { return value() + 1; }\n')
    (root / "b.cpp").write_text('#include "value.h"\nint value() { return 40; }\n')
    monkeypatch.delenv("TORCH_EXTRA_CFLAGS", raising=False)
    monkeypatch.delenv("TORCH_EXTRA_LDFLAGS", raising=False)
    monkeypatch.delenv("TORCH_EXTRA_SOURCES", raising=False)
    ext = tmp_path / "ext"

    first = cpp_extension.load_library(_toy_spec(cpp_extension, root), ext)
    assert ctypes.CDLL(str(first)).toy_a() == 41
    assert json.loads((first.parent / "build.json").read_text())["compiled"] == 2
    assert cpp_extension.load_library(_toy_spec(cpp_extension, root), ext) == first  # cached: no build

    (root / "b.cpp").write_text('#include "value.h"\nint value() { return 1; }\n')
    second = cpp_extension.load_library(_toy_spec(cpp_extension, root), ext)
    assert second != first and ctypes.CDLL(str(second)).toy_a() == 2
    assert json.loads((second.parent / "build.json").read_text())["compiled"] == 1

    extra = tmp_path / "extra.c"
    extra.write_text("int toy_extra(void) { return EXTRA; }\n")
    monkeypatch.setenv("TORCH_EXTRA_CFLAGS", "-DEXTRA=7 -finstrument-functions")
    monkeypatch.setenv("TORCH_EXTRA_SOURCES", str(extra))
    monkeypatch.setenv("TORCH_EXTRA_LDFLAGS", "-Wl,-Bsymbolic")
    third = cpp_extension.load_library(_toy_spec(cpp_extension, root), ext)
    assert third not in (first, second) and ctypes.CDLL(str(third)).toy_extra() == 7


def test_a_compile_error_names_the_file_and_the_first_error_lines(torch, tmp_path):
    from torch.utils import cpp_extension

    root = tmp_path / "broken"
    root.mkdir()
    (root / "ok.cpp").write_text("int fine() { return 0; }\n")
    (root / "bad.cpp").write_text("int broken() {\n  return undeclared_name;\n}\n")
    with pytest.raises(cpp_extension.BuildError) as caught:
        cpp_extension.load_library(_toy_spec(cpp_extension, root, use_environment=False), tmp_path / "ext")
    message = str(caught.value)
    assert "compiling bad.cpp failed" in message and "undeclared_name" in message and "error" in message


def test_without_a_compiler_import_says_how_to_get_one(tmp_path):
    python_dir = Path(sys.executable).parent
    if any((python_dir / name).exists() for name in ("c++", "g++", "clang++")):
        pytest.skip(f"{python_dir} holds a C++ compiler")
    env = {k: v for k, v in os.environ.items() if k not in ("CXX", "PYTHONPATH")}
    env.update(PATH=str(python_dir), PYTHONPATH=str(SAMPLE_ROOT), TORCH_EXTENSIONS_DIR=str(tmp_path / "ext"))
    result = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "torch.utils.cpp_extension.CompilerNotFoundError: torch builds its native library on first import "
        "and needs a C++ compiler for it, but found none"
    )
    assert last.endswith("install one (Debian/Ubuntu: apt-get install g++) or point $CXX at it.")
    assert not (tmp_path / "ext").exists() or not any((tmp_path / "ext").rglob("*.so"))


@pytest.fixture()
def torchgen() -> Iterator[Any]:
    saved = {n: m for n, m in sys.modules.items() if n == "torchgen" or n.startswith("torchgen.")}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(SAMPLE_ROOT))
    try:
        import torchgen.gen
        import torchgen.model
        import torchgen.yaml_subset

        yield torchgen
    finally:
        sys.path.remove(str(SAMPLE_ROOT))
        for name in [n for n in sys.modules if n == "torchgen" or n.startswith("torchgen.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def test_torchgen_model_reads_keys_defaults_and_structured_groups(torchgen, tmp_path):
    yaml_file = tmp_path / "native_functions.yaml"
    yaml_file.write_text(
        "- func: scale.out(Tensor self, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n"
        "  structured: True\n"
        "  dispatch:\n"
        "    CPU, CUDA: scale_out  # one kernel class for both keys\n"
        "\n"
        "- func: scale(Tensor self, *, Scalar alpha=1) -> Tensor\n"
        "  structured_delegate: scale.out\n"
        "  variants: function, method\n"
        "\n"
        '- func: twice.int(Tensor self, SymInt[2] size, int dim=-1, str mode="x") -> (Tensor, Tensor)\n'
        "  python_module: nn\n"
    )
    model = torchgen.model
    functions = model.parse_native_yaml(str(yaml_file))
    out, functional, twice = functions
    assert [(k.value, m.kernel) for k, m in out.dispatch] == [("CPU", "scale_out"), ("CUDA", "scale_out")]
    assert functional.dispatch == () and str(functional.structured_delegate) == "scale.out"
    # no dispatch: section means a CompositeImplicitAutograd kernel named after the op
    assert [(k.value, m.kernel) for k, m in twice.dispatch] == [("CompositeImplicitAutograd", "twice")]
    assert str(twice.func) == 'twice.int(Tensor self, SymInt[2] size, int dim=-1, str mode="x") -> (Tensor, Tensor)'
    assert twice.func.name.unambiguous_name() == "twice_int" and twice.python_module == "nn"
    (group,) = model.group_structured(functions)
    assert group.meta_class_name() == "structured_scale" and group.out is out
    assert torchgen.yaml_subset.load_entries(yaml_file.read_text(), "x") == torchgen.model._load_yaml_entries(
        yaml_file.read_text(), "x"
    )
    real = (SAMPLE_ROOT / "aten/src/ATen/native/native_functions.yaml").read_text()
    assert torchgen.yaml_subset.load_entries(real, "x") == torchgen.model._load_yaml_entries(real, "x")


def test_torchgen_maps_the_yaml_onto_the_hand_written_headers(torchgen, tmp_path):
    functions = torchgen.model.parse_native_yaml(str(SAMPLE_ROOT / "aten/src/ATen/native/native_functions.yaml"))
    files = {Path(p).name: Path(p) for p in torchgen.gen.generate(str(SAMPLE_ROOT / "aten/src/ATen"), str(tmp_path))}
    assert len(functions) == 40
    assert set(files) >= {
        "Operators.cpp",
        "RegisterSchema.cpp",
        "RegisterCPU.cpp",
        "RegisterCUDA.cpp",
        "RegisterCompositeExplicitAutograd.cpp",
        "RegisterCompositeImplicitAutograd.cpp",
        "python_torch_functions.cpp",
        "python_nn_functions.cpp",
        "manifest.json",
    }
    cpu = files["RegisterCPU.cpp"].read_text()
    assert "at::Tensor & wrapper_CPU_relu_(at::Tensor & self) {\n  return at::native::relu_(self);" in cpu
    assert "wrapper_CPU_add_Tensor" in cpu and "structured_add_out_functional op;" in cpu
    explicit = files["RegisterCompositeExplicitAutograd.cpp"].read_text()
    assert "return at::native::convolution(input, weight, bias, C10_AS_INTARRAYREF_SLOW(stride)" in explicit
    assert "groups.guard_int(__FILE__, __LINE__)" in explicit
    implicit = files["RegisterCompositeImplicitAutograd.cpp"].read_text()
    assert "return at::native::conv2d_symint(input, weight, bias, stride, padding, dilation, groups);" in implicit
    assert "return at::native::softmax(self, dim, dtype);" in implicit
    cuda = files["RegisterCUDA.cpp"].read_text()
    assert (
        'c10::impl::check_and_update_common_device(common_device, self, "wrapper_CUDA_cudnn_convolution", "self");'
        in cuda
    )
    bindings = files["python_torch_functions.cpp"].read_text()
    assert 'extern "C" TORCH_API int THPVariable_conv2d_padding(' in bindings
    assert "at::conv2d(THPUtils_unpackTensor(args[0])" in bindings
    if shutil.which("c++"):
        for name in ("Operators.cpp", "RegisterCPU.cpp", "python_nn_functions.cpp"):
            command = [
                "c++",
                "-std=c++17",
                "-fsyntax-only",
                f"-I{SAMPLE_ROOT / 'aten/src'}",
                f"-I{SAMPLE_ROOT}",
                f"-I{SAMPLE_ROOT / 'third_party/cuda/include'}",
                str(files[name]),
            ]
            result = subprocess.run(command, capture_output=True, text=True)
            assert result.returncode == 0, result.stderr
