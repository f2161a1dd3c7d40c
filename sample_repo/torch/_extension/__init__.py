"""The bundled reference runtime: a stand-in for the compiled extension torch._C.

The real torch._C is a CPython extension module built with the tree. Here the
native code (ATen, c10, torch/csrc, the vendor reference libraries, and what
torchgen generates from native_functions.yaml) is compiled on first import
into a shared library (torch/utils/cpp_extension.py caches it), and this
package exposes it through ctypes as a module object installed under the name
torch._C, with what torch/_C/*.pyi declare:

- dtypes, device, Size, memory_format (core.py);
- TensorBase (tensor.py), with the method variants of the operators;
- torch._C._VariableFunctions and torch._C._nn, one binding per operator
  (bindings.py, overloads resolved by arguments.py);
- grad mode, backend switches, build facts, docstring and __torch_function__
  helpers (functions.py); tensor factories outside the yaml (factories.py).

torch/__init__.py calls install() before ``from torch import _C``.
"""

from __future__ import annotations

import sys
import types
from typing import Optional

__all__ = ["install"]

_installed: Optional[types.ModuleType] = None


def install() -> types.ModuleType:
    """Build (if needed) and load the native library; install torch._C and its submodules."""
    global _installed
    if _installed is not None:
        _register(_installed)
        return _installed

    from torch._extension import bindings, core, factories, functions, loader, runtime
    from torch._extension.tensor import TensorBase

    native = loader.load()
    runtime.set_native(native)

    module = types.ModuleType("torch._C", __doc__)
    module.__file__ = str(native.path)
    module._library_path = str(native.path)

    # dtypes, devices and shapes
    for name, value in core.DTYPES.items():
        setattr(module, name, value)
    for name in ("dtype", "device", "Size", "memory_format", "layout", "contiguous_format",
                 "preserve_format", "channels_last", "strided"):
        setattr(module, name, getattr(core, name))

    # the tensor class, with the operator methods attached below
    module.TensorBase = TensorBase
    TensorBase.__module__ = "torch._C"

    # module functions
    for name in ("is_grad_enabled", "_set_grad_enabled", "_get_cudnn_enabled", "_set_cudnn_enabled",
                 "_get_cudnn_benchmark", "_set_cudnn_benchmark", "_get_cudnn_deterministic",
                 "_set_cudnn_deterministic", "_get_cudnn_allow_tf32", "_set_cudnn_allow_tf32",
                 "_get_mkldnn_enabled", "_set_mkldnn_enabled", "_cudnn_version", "_cuda_getDeviceCount",
                 "_cuda_isAvailable", "_add_docstr", "_get_tracing_state", "_log_api_usage_once",
                 "_has_torch_function", "_has_torch_function_unary", "_has_torch_function_variadic",
                 "_disabled_torch_function_impl", "_ImperativeEngine", "_FunctionBase"):
        setattr(module, name, getattr(functions, name))
    module._has_cudnn = bool(native.lib.THPModule_hasCuDNN())
    module._has_mkldnn = bool(native.lib.THPModule_hasMKLDNN())
    module.Generator = factories.Generator
    module.default_generator = factories.Generator(factories.initial_seed())

    # operators
    operator_modules = bindings.build_operator_modules(native.manifest, native.lib, TensorBase)
    variable_functions = operator_modules["_VariableFunctions"]
    # factories that native_functions.yaml of the sample does not declare
    for name in ("zeros", "ones", "full", "rand", "randn", "tensor", "arange", "zeros_like", "ones_like",
                 "empty_like", "full_like", "manual_seed", "initial_seed"):
        setattr(variable_functions, name, getattr(factories, name))
    module._VariableFunctions = variable_functions
    module._nn = operator_modules["_nn"]

    _installed = module
    _register(module)
    return module


def _register(module: types.ModuleType) -> None:
    sys.modules["torch._C"] = module
    sys.modules["torch._C._VariableFunctions"] = module._VariableFunctions
    sys.modules["torch._C._nn"] = module._nn
    torch = sys.modules.get("torch")
    if torch is not None:
        torch._C = module
