"""The Python side of an operator: how the generated extern "C" entry points
read their arguments, and what the manifest tells the Python loader.

Calling convention of every entry point (see torch/csrc/utils/python_arg_parser.h):

    int THPVariable_<op>[_<overload>](const THPArg* args, int64_t nargs,
                                      THPResult* results, char* error, int64_t error_len);

`args` holds one tagged value per schema argument, in schema order (the
Python layer has already matched keywords, defaults and overloads);
`results` receives one tagged value per schema return. The return value is
0, or an error code with a message in `error`.
"""

from __future__ import annotations

from typing import Dict, List

from torchgen.model import Argument, BaseTy, BaseType, ListType, NativeFunction, OptionalType, SchemaParseError, Type

_UNPACK_BASE = {
    BaseTy.SymInt: "THPUtils_unpackLong",
    BaseTy.int: "THPUtils_unpackLong",
    BaseTy.float: "THPUtils_unpackDouble",
    BaseTy.bool: "THPUtils_unpackBool",
    BaseTy.str: "THPUtils_unpackStringView",
    BaseTy.Scalar: "THPUtils_unpackScalar",
    BaseTy.ScalarType: "THPUtils_unpackScalarType",
    BaseTy.Layout: "THPUtils_unpackLayout",
    BaseTy.Device: "THPUtils_unpackDevice",
    BaseTy.MemoryFormat: "THPUtils_unpackMemoryFormat",
}


def unpack_function(arg: Argument) -> str:
    """Name of the THPUtils_unpack* helper that turns a THPArg into the C++ value."""
    ty = arg.type
    if ty == BaseType(BaseTy.Tensor):
        return "THPUtils_unpackTensorRef" if arg.is_write else "THPUtils_unpackTensor"
    if isinstance(ty, OptionalType):
        if ty.elem == BaseType(BaseTy.Tensor):
            return "THPUtils_unpackOptionalTensor"
        if isinstance(ty.elem, BaseType) and ty.elem.name in _UNPACK_BASE:
            return _UNPACK_BASE[ty.elem.name].replace("THPUtils_unpack", "THPUtils_unpackOptional")
        raise SchemaParseError(f"no Python unpacking for {ty}")
    if isinstance(ty, ListType):
        if ty.elem == BaseType(BaseTy.Tensor):
            return "THPUtils_unpackTensorList"
        if ty.elem in (BaseType(BaseTy.int), BaseType(BaseTy.SymInt)):
            return "THPUtils_unpackIntList"
        raise SchemaParseError(f"no Python unpacking for {ty}")
    assert isinstance(ty, BaseType)
    return _UNPACK_BASE[ty.name]


def entry_point_name(f: NativeFunction) -> str:
    """`THPVariable_conv2d_padding`: the extern "C" symbol of one overload."""
    return f"THPVariable_{f.func.name.unambiguous_name()}"


def _type_json(ty: Type) -> str:
    return str(ty)


def manifest_entry(f: NativeFunction, symbol: str) -> Dict[str, object]:
    """What the Python loader needs to bind one overload (see torch/_extension/arguments.py)."""

    def argument(a: Argument, kwarg_only: bool, is_out: bool) -> Dict[str, object]:
        return {
            "name": a.name,
            "type": _type_json(a.type),
            "default": a.default,
            "kwarg_only": kwarg_only,
            "is_out": is_out,
            "annotation": str(a.annotation) if a.annotation is not None else None,
        }

    args = f.func.arguments
    arguments: List[Dict[str, object]] = [argument(a, False, False) for a in args.positional]
    arguments += [argument(a, True, False) for a in args.kwarg_only]
    arguments += [argument(a, True, True) for a in args.out]
    returns = [
        {"name": r.name, "type": _type_json(r.type), "annotation": str(r.annotation) if r.annotation else None}
        for r in f.func.returns
    ]
    dispatch: Dict[str, str] = {key.value: meta.kernel for key, meta in f.dispatch}
    return {
        "name": str(f.func.name.name),
        "overload_name": f.func.name.overload_name,
        "schema": str(f.func),
        "symbol": symbol,
        "arguments": arguments,
        "returns": returns,
        "variants": [v.value for v in f.variants],
        "python_module": f.python_module,
        "dispatch": dispatch,
        "structured_delegate": str(f.structured_delegate) if f.structured_delegate else None,
        "line": f.loc.line,
    }
