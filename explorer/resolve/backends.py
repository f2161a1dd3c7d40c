"""Which dispatch keys, files and names belong to a backend, for `trace --backend`.

PyTorch selects a backend in two ways a static reader can see:
- the dispatch table of an operator: a key per backend (`CPU`, `CUDA`, `SparseCUDA`, ...),
  and Composite keys that run on every backend;
- device checks in C++ (`use_cudnn(...)`, `input.is_cuda()`), which pick among functions
  whose names and folders say what they are for (`cudnn_convolution` in `native/cudnn/`,
  `mkldnn_convolution` in `native/mkldnn/`, `*_cpu` / `*_cuda` kernels).
A static trace cannot evaluate the checks, so it keeps both sides of a branch and prunes by
those names and folders: with `--backend cuda` a path into `mkldnn` is dropped, with
`--backend cpu` a path into `cudnn`.
"""

from __future__ import annotations

import functools
import re

from explorer.model import CallNode, Layer

BACKENDS = ("cuda", "cpu", "all")

# A name or path matching a backend's marker belongs to that backend only. Other device
# backends (MPS, Vulkan, XPU, ...) belong to neither of the two a trace follows.
_MARKERS = {
    "cuda": re.compile(r"cudnn|cublas|cusparse|cusolver|cufft|curand|nccl|cuda|\.cuh?(\s|$)", re.I),
    "cpu": re.compile(r"mkldnn|onednn|dnnl|mkl|xnnpack|qnnpack|fbgemm|cpublas|(^|[_/:\s])cpu([_/.:\s]|$)", re.I),
    "other": re.compile(r"(^|[_/:\s])(mps|vulkan|metal|xpu|hpu|mtia|miopen)([_/.:\s]|$)|\.mm(\s|$)", re.I),
}
_DISPATCH_KEY_BACKEND = {"cuda": "CUDA", "cpu": "CPU"}


def dispatch_key_allowed(key: str, backend: str) -> bool:
    """Composite kernels run on every backend; the others only on theirs. Kernels for other
    layouts and dtypes (SparseCUDA, QuantizedCPU, NestedTensorCUDA, ...) are for `all`: a
    trace of a dense model would otherwise wander into them."""
    if backend == "all" or key.startswith("Composite"):
        return True
    return key == _DISPATCH_KEY_BACKEND[backend]


def node_allowed(node: CallNode, backend: str) -> bool:
    """False for an operator, C++ or vendor definition that, by its name or folder, serves
    another backend (`aten::cudnn_convolution` is not on a CPU path)."""
    if backend == "all" or node.layer in (Layer.PYTHON, Layer.BINDING):
        return True
    symbol = node.symbol
    # An operator is judged by its name alone: every operator lives in the same YAML file.
    return _text_allowed(symbol.qname if node.layer is Layer.YAML else f"{symbol.qname} {symbol.path or ''}", backend)


@functools.lru_cache(maxsize=16384)  # a trace meets the same definitions over and over
def _text_allowed(text: str, backend: str) -> bool:
    if _MARKERS["other"].search(text):
        return False
    other = "cpu" if backend == "cuda" else "cuda"
    return not (_MARKERS[other].search(text) and not _MARKERS[backend].search(text))
