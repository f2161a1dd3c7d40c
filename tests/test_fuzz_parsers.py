"""Every parser, fed damaged versions of small valid files: bytes inserted, deleted and
replaced, the file cut short, a slice repeated, unicode dropped in.

Whatever the bytes, a parser returns FileFacts without raising, every line it records lies in
the file, every line a diagnostic names does too, and the same bytes give equal facts.

The suite runs a fixed, small set of examples per parser (the same each run). For a longer,
randomised search: EXPLORER_FUZZ_EXAMPLES=5000 pytest tests/test_fuzz_parsers.py
"""

from __future__ import annotations

import os
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.model import FileFacts, Language
from explorer.parsers import parse_file

_EXAMPLES = int(os.environ.get("EXPLORER_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=_EXAMPLES or 150,
    deadline=None,
    derandomize=not _EXAMPLES,
    database=None,  # nothing written into the checkout
)

PYTHON_SEED = b'''\
"""A module."""
import os
import torch.nn as nn
from . import functional as F
from ..utils import helper, other as renamed

CONSTANT = 3
alias = torch.relu
documented = _add_docstr(torch.conv2d, r"""conv2d(input) -> Tensor""" + "more")


@decorator
class Module(nn.Module, metaclass=Meta):
    limit: int = 4
    shortcut = helper

    @staticmethod
    def build(x, *args, key=None, **kwargs) -> "Module":
        return Module(F.relu(x), [y for y in args if y], {k: v for k, v in kwargs.items()})

    @property
    def forward(self):
        if self.limit:
            try:
                import json
            except ImportError:
                json = None
        return lambda value: renamed(value)(self)[0].call()


def outer():
    def inner():
        return outer()
    return inner
'''

CPP_SEED = b"""\
#include <ATen/native/Activation.h>
#define CALL_TWICE(f) f(); f();
#define KERNEL_NAME(x) x##_kernel

namespace at {
namespace native {

DEFINE_DISPATCH(relu_stub);

template <typename scalar_t, int N = 4>
static inline scalar_t clamp_value(scalar_t value) {
  return std::min<scalar_t>(std::max(value, scalar_t(0)), scalar_t(N));
}

class TORCH_API Helper : public Base<int> {
 public:
  Helper() = default;
  void run(const Tensor& self) const { CALL_TWICE(prepare); at::cpu::relu(self); }
};

TORCH_META_FUNC(relu_out)(const Tensor& self) {
  build_unary_op(maybe_get_output(), self);
}

TORCH_IMPL_FUNC(relu_out)(const Tensor& self, const Tensor& result) {
  relu_stub(device_type(), *this);
}

void relu_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), "relu", [&]() {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return clamp_value<scalar_t>(a); });
  });
}

REGISTER_DISPATCH(relu_stub, &relu_kernel);

} // namespace native
} // namespace at

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("relu", TORCH_FN(at::native::relu));
}
"""

CUDA_SEED = b"""\
#include <cuda_runtime.h>

namespace at { namespace native {

template <typename scalar_t>
__global__ void scale_kernel(scalar_t* out, const scalar_t* in, int n) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < n) {
    out[index] = in[index] * scalar_t(2);
  }
}

__device__ float square(float x) { return x * x; }

void launch_scale(float* out, const float* in, int n, cudaStream_t stream) {
  dim3 grid((n + 255) / 256);
  scale_kernel<float><<<grid, 256, 0, stream>>>(out, in, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}} // namespace at::native
"""

OPERATORS_SEED = b"""\
# Operators
- func: relu(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU, CUDA: relu
    MkldnnCPU: mkldnn_relu
  tags: [core, pointwise]

- func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  autogen: relu.other
  dispatch:
    CPU: relu_out_cpu

- func: addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1) -> Tensor
  structured_delegate: addmm.out
  python_module: nn
"""

DERIVATIVES_SEED = b"""\
- name: relu(Tensor self) -> Tensor
  self: threshold_backward(grad, result, 0)
  result: auto_element_wise

- name: addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1) -> Tensor
  self: maybe_multiply(grad, beta.conj())
  "mat1, mat2": "mm_mat1_backward(grad, mat2, mat1.sym_sizes(), beta)"
  output_differentiability: [True]
  dispatch:
    Default:
      self: grad
"""

# Bytes that mean something to one of the grammars, and some that mean trouble.
_MEANINGFUL = [
    b"(",
    b")",
    b"[",
    b"]",
    b"{",
    b"}",
    b"<",
    b">",
    b"<<<",
    b">>>",
    b":",
    b"::",
    b",",
    b";",
    b"-",
    b"- ",
    b"&a",
    b"*a",
    b'"',
    b"'",
    b'"""',
    b"#",
    b"//",
    b"/*",
    b"*/",
    b"\\",
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b"    ",
    b"  ",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xe2\x80\xa8",
    b"@",
    b"def ",
    b"class ",
    b"namespace ",
    b"template <",
    b"#define X(a) a\n",
    b"#if 0\n",
    b"#endif\n",
    b"__global__ ",
    b"TORCH_IMPL_FUNC(",
    b"REGISTER_DISPATCH(",
    b"func: ",
    b"dispatch:\n",
    b"---\n",
    b"? ",
    b"!!python/object ",
    b"%YAML 1.1\n",
]


@st.composite
def damaged(draw: st.DrawFn, seed: bytes) -> bytes:
    """The seed with one to four damages, each at a drawn place."""
    data = seed
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(data)))
        end = draw(st.integers(start, min(len(data), start + 64)))
        damage = draw(st.sampled_from(["insert", "delete", "replace", "truncate", "repeat", "unicode"]))
        if damage == "insert":
            piece = draw(st.one_of(st.sampled_from(_MEANINGFUL), st.binary(min_size=1, max_size=8)))
            data = data[:start] + piece + data[start:]
        elif damage == "delete":
            data = data[:start] + data[end:]
        elif damage == "replace":
            data = data[:start] + draw(st.binary(max_size=16)) + data[end:]
        elif damage == "truncate":
            data = data[:start]
        elif damage == "repeat":
            data = data[:end] + data[start:end] * draw(st.integers(1, 3)) + data[end:]
        else:
            data = data[:start] + draw(st.text(min_size=1, max_size=8)).encode("utf-8", "surrogatepass") + data[end:]
    return data


_LINE_IN_DIAGNOSTIC = re.compile(r"\bline (\d+)")


def check(path: str, lang: Language, source: bytes) -> None:
    facts = parse_file(path, lang, source)
    assert isinstance(facts, FileFacts)
    last = source.count(b"\n") + 1

    def in_file(line: int | None, what: object) -> None:
        assert line is not None and 1 <= line <= last + 1, (line, last, what)

    for symbol in facts.symbols:
        in_file(symbol.line, symbol)
        in_file(symbol.end_line, symbol)
        assert symbol.end_line is not None and symbol.line is not None and symbol.end_line >= symbol.line, symbol
    for call in facts.calls:
        in_file(call.line, call)
    for record in (*facts.imports, *facts.dispatch):
        in_file(record.line, record)
    for derivative in facts.derivatives:
        in_file(derivative.line, derivative)
        in_file(derivative.end_line, derivative)
    for diagnostic in facts.diagnostics:
        assert diagnostic.path == path and "line None" not in diagnostic.reason and "\n" not in diagnostic.reason, (
            diagnostic
        )
        for line in _LINE_IN_DIAGNOSTIC.findall(diagnostic.reason):
            in_file(int(line), diagnostic)
    again = parse_file(path, lang, source)
    assert again == facts  # the same bytes, the same facts, in the same order


@FUZZ
@given(damaged(PYTHON_SEED))
def test_python(source: bytes):
    check("torch/nn/modules/module.py", Language.PYTHON, source)


@FUZZ
@given(damaged(CPP_SEED))
def test_cpp(source: bytes):
    check("aten/src/ATen/native/Activation.cpp", Language.CPP, source)


@FUZZ
@given(damaged(CUDA_SEED))
def test_cuda(source: bytes):
    check("aten/src/ATen/native/cuda/Scale.cu", Language.CUDA, source)


@FUZZ
@given(damaged(OPERATORS_SEED))
def test_native_functions_yaml(source: bytes):
    check("aten/src/ATen/native/native_functions.yaml", Language.YAML, source)


@FUZZ
@given(damaged(DERIVATIVES_SEED))
def test_derivatives_yaml(source: bytes):
    check("tools/autograd/derivatives.yaml", Language.YAML, source)


def test_cpp_facts_come_in_the_same_order_each_time():
    # The binding hands captures back in varying order; explorer.treesitter sorts them.
    source = b"void f() { a(); b(); c(); d(); }\nvoid g() { e(); }\nvoid h() { f(); }\n"
    first = parse_file("a.cpp", Language.CPP, source)
    for _ in range(20):
        assert parse_file("a.cpp", Language.CPP, source) == first


def test_the_seeds_are_read_without_a_problem():
    """The damage is what the fuzzing adds: each seed alone parses cleanly and finds things."""
    for path, lang, seed in (
        ("torch/nn/modules/module.py", Language.PYTHON, PYTHON_SEED),
        ("aten/src/ATen/native/Activation.cpp", Language.CPP, CPP_SEED),
        ("aten/src/ATen/native/cuda/Scale.cu", Language.CUDA, CUDA_SEED),
        ("aten/src/ATen/native/native_functions.yaml", Language.YAML, OPERATORS_SEED),
        ("tools/autograd/derivatives.yaml", Language.YAML, DERIVATIVES_SEED),
    ):
        facts = parse_file(path, lang, seed)
        assert facts.diagnostics == [], (path, facts.diagnostics)
        assert facts.symbols or facts.derivatives, path
        check(path, lang, seed)
