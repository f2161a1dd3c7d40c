"""The operator bindings of torch._C, made from the manifest torchgen writes.

One Python function per operator name and owner, covering all its overloads:
``torch._C._VariableFunctions.<op>`` (ops with a function variant and no
python_module), ``torch._C._nn.<op>`` (python_module: nn) and
``torch._C.TensorBase.<op>`` (method variant). The overload is chosen at call
time from the arguments (arguments.py), then the extern "C" entry point
``THPVariable_<op>[_<overload>]`` of the native library runs it.

Each binding is a function whose code object is named like the binding of the
stubs: ``co_qualname`` is ``"<owner>.<name>"`` (``"_VariableFunctions.conv2d"``,
``"TensorBase.relu"``) and its globals' ``__name__`` is ``"torch._C"``, so a
profiler that joins the two sees ``torch._C._VariableFunctions.conv2d``, the
name under which torch/_C/*.pyi declare it. The work is done by an
OperatorBinding the function closes over.
"""

from __future__ import annotations

import builtins
import ctypes
import sys
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from torch._extension import runtime
from torch._extension.arguments import (
    _is_tensor,
    THPArg,
    THPResult,
    ArgumentMismatch,
    PythonSignature,
    format_invalid_arguments,
    parse_type,
    to_thparg,
)

__all__ = ["OperatorBinding", "make_binding", "build_operator_modules", "variable_functions"]

# The globals of every binding function: what makes their frames read as torch._C.
BINDING_GLOBALS: Dict[str, Any] = {"__name__": "torch._C", "__builtins__": builtins}


def _function_template():
    _binding = None

    def template(*args, **kwargs):
        return _binding(args, kwargs)

    return template


def _method_template():
    _binding = None

    def template(self, *args, **kwargs):
        return _binding.call_method(self, args, kwargs)

    return template


_FUNCTION_CODE = _function_template().__code__
_METHOD_CODE = _method_template().__code__


class _Overload:
    """One overload: its Python signature and its native entry point."""

    def __init__(self, entry: Dict[str, Any], method: bool, lib: ctypes.CDLL) -> None:
        self.entry = entry
        self.signature = PythonSignature(entry, method)
        self.types = [parse_type(a["type"]) for a in entry["arguments"]]
        self.n_results = len(entry["returns"])
        fn = getattr(lib, entry["symbol"])
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.POINTER(THPArg), ctypes.c_int64, ctypes.POINTER(THPResult), ctypes.c_char_p,
                       ctypes.c_int64]
        self.fn = fn
        # returns that alias a written argument (Tensor(a!)) give back that argument
        by_alias = {a["annotation"]: i for i, a in enumerate(entry["arguments"]) if a["annotation"]}
        self.alias_of: List[Optional[int]] = [
            by_alias.get(r["annotation"]) if r["annotation"] and r["annotation"].endswith("!") else None
            for r in entry["returns"]
        ]
        self.return_types = [r["type"] for r in entry["returns"]]

    def run(self, values: Sequence[Any]) -> Any:
        from torch._extension.tensor import wrap

        n = len(values)
        args = (THPArg * max(1, n))()
        keepalive: List[Any] = []
        for slot, value, ty in zip(args, values, self.types):
            to_thparg(slot, value, ty, keepalive)
        results = (THPResult * max(1, self.n_results))()
        error = runtime.error_buffer()
        code = self.fn(args, n, results, error, runtime.ERROR_BUFFER_SIZE)
        if code != 0:
            runtime.raise_error(code, error)
        out: List[Any] = []
        lib = runtime.lib()
        impls: Optional[Dict[int, Any]] = None
        for k in range(self.n_results):
            result = results[k]
            alias = self.alias_of[k]
            if alias is not None:
                if result.tag == 1 and result.p:
                    lib.THPTensor_free(result.p)
                out.append(values[alias])
            elif result.tag == 1:
                # A kernel that returns one of its inputs (dropout in eval mode, t() of a
                # 1-d tensor...) gives back the same Python object, as THPVariable_Wrap does.
                if impls is None:
                    impls = {lib.THPTensor_unsafeGetTensorImpl(v._cdata): v for v in values if _is_tensor(v)}
                same = impls.get(lib.THPTensor_unsafeGetTensorImpl(result.p))
                if same is not None:
                    lib.THPTensor_free(result.p)
                    out.append(same)
                else:
                    out.append(wrap(result.p))
            elif result.tag == 0:
                out.append(None)
            elif result.tag == 4:
                out.append(bool(result.i))
            elif result.tag == 2:
                out.append(int(result.i))
            else:
                out.append(float(result.f))
        if self.n_results == 1:
            return out[0]
        return tuple(out)


class OperatorBinding:
    """All overloads of one operator name for one owner; callable like the binding."""

    def __init__(self, owner: str, name: str, entries: Sequence[Dict[str, Any]], method: bool, lib: ctypes.CDLL) -> None:
        self.owner = owner
        self.name = name
        self.method = method
        self.overloads = [_Overload(e, method, lib) for e in entries]

    def _select(self, self_value: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[_Overload, List[Any], bool]:
        if kwargs.get("out", 0) is None:
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
        reasons: List[str] = []
        for overload in self.overloads:
            try:
                checked = overload.signature.bind(args, kwargs)
            except ArgumentMismatch as mismatch:
                reasons.append(str(mismatch))
                continue
            values = overload.signature.schema_values(self_value, checked)
            return overload, values, bool(checked.get("requires_grad", False))
        raise TypeError(
            format_invalid_arguments(self.name, [o.signature for o in self.overloads], args, kwargs, reasons)
        )

    def __call__(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        overload, values, requires_grad = self._select(None, args, kwargs)
        result = overload.run(values)
        if requires_grad:
            result.requires_grad = True
        return result

    def call_method(self, self_value: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        overload, values, _ = self._select(self_value, args, kwargs)
        return overload.run(values)


def make_binding(owner: str, binding: OperatorBinding) -> Callable[..., Any]:
    """A function whose frames read as torch._C.<owner>.<name> (see the module docstring)."""
    name = binding.name
    template = _METHOD_CODE if binding.method else _FUNCTION_CODE
    qualname = f"{owner}.{name}"
    if sys.version_info >= (3, 11):
        code = template.replace(co_name=name, co_qualname=qualname)
    else:  # pragma: no cover - older interpreters have no co_qualname
        code = template.replace(co_name=name)
    fn = types.FunctionType(code, BINDING_GLOBALS, name, None, (types.CellType(binding),))
    fn.__qualname__ = qualname
    fn.__module__ = "torch._C" if owner == "TensorBase" else f"torch._C.{owner}"
    overloads = "\n".join(f"{name}{o.signature.render()}" for o in binding.overloads)
    fn.__doc__ = overloads
    return fn


def _group(manifest: Dict[str, Any]) -> Dict[Tuple[str, str], List[Dict[str, Any]]]:
    """(owner, name) -> overload entries, in manifest order."""
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for entry in manifest["operators"]:
        name = entry["name"]
        variants = entry["variants"]
        if entry["python_module"] == "nn":
            owners = ["_nn"]
        elif entry["python_module"] is None:
            owners = ["_VariableFunctions"] if "function" in variants else []
        else:
            owners = []
        if "method" in variants:
            owners.append("TensorBase")
        for owner in owners:
            groups.setdefault((owner, name), []).append(entry)
    return groups


_MODULES: Dict[str, types.ModuleType] = {}


def build_operator_modules(manifest: Dict[str, Any], lib: ctypes.CDLL, tensor_base: type) -> Dict[str, types.ModuleType]:
    """torch._C._VariableFunctions and torch._C._nn as modules; method bindings set on TensorBase."""
    modules = {
        "_VariableFunctions": types.ModuleType("torch._C._VariableFunctions"),
        "_nn": types.ModuleType("torch._C._nn"),
    }
    modules["_VariableFunctions"].__doc__ = "Operators of native_functions.yaml with a function variant."
    modules["_nn"].__doc__ = "Operators of native_functions.yaml with python_module: nn."
    for (owner, name), entries in _group(manifest).items():
        # the out= overloads are tried after the others
        entries = sorted(entries, key=lambda e: any(a["is_out"] for a in e["arguments"]))
        binding = OperatorBinding(owner, name, entries, owner == "TensorBase", lib)
        fn = make_binding(owner, binding)
        if owner == "TensorBase":
            setattr(tensor_base, name, fn)
        else:
            setattr(modules[owner], name, fn)
    _MODULES.update(modules)
    return modules


def variable_functions() -> types.ModuleType:
    return _MODULES["_VariableFunctions"]
