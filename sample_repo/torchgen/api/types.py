"""C++ spellings of schema types, for the three C++ APIs of an operator.

- dispatcher: the signature of at::_ops::<op>::call in ATen/Operators.h and of
  every registered kernel wrapper. SymInt stays SymInt.
- native: the signature of the at::native kernel named under `dispatch:` in
  ATen/NativeFunctions.h. Kernels whose name ends in `_symint` take SymInts,
  the others plain ints.
- cpp: the public at::<op> functions of ATen/Functions.h, which take plain
  ints; out= variants are spelled at::<op>_out(out..., args...).
"""

from __future__ import annotations

from typing import List, Sequence

from torchgen.model import (
    Argument,
    BaseTy,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    Return,
    SchemaParseError,
    Type,
)

_VALUE_TYPES = {
    BaseTy.int: "int64_t",
    BaseTy.float: "double",
    BaseTy.bool: "bool",
    BaseTy.str: "std::string_view",
    BaseTy.ScalarType: "at::ScalarType",
    BaseTy.Layout: "at::Layout",
    BaseTy.Device: "at::Device",
    BaseTy.MemoryFormat: "at::MemoryFormat",
}


def argument_type(ty: Type, *, mutable: bool, symint: bool) -> str:
    """The C++ parameter type of one argument."""
    if isinstance(ty, BaseType):
        if ty.name is BaseTy.Tensor:
            return "at::Tensor &" if mutable else "const at::Tensor &"
        if ty.name is BaseTy.Scalar:
            return "const at::Scalar &"
        if ty.name is BaseTy.SymInt:
            return "c10::SymInt" if symint else "int64_t"
        return _VALUE_TYPES[ty.name]
    if isinstance(ty, OptionalType):
        if ty.elem == BaseType(BaseTy.Tensor):
            return "const std::optional<at::Tensor> &"
        inner = argument_type(ty.elem, mutable=False, symint=symint)
        if inner.startswith("const ") and inner.endswith("&"):
            inner = inner[len("const "):-1].strip()
        return f"std::optional<{inner}>"
    if isinstance(ty, ListType):
        elem = ty.elem
        if elem == BaseType(BaseTy.Tensor):
            return "at::TensorList"
        if elem == BaseType(BaseTy.SymInt):
            return "c10::SymIntArrayRef" if symint else "at::IntArrayRef"
        if elem == BaseType(BaseTy.int):
            return "at::IntArrayRef"
        raise SchemaParseError(f"no C++ type for list type {ty}")
    raise SchemaParseError(f"no C++ type for {ty}")


def return_type(returns: Sequence[Return]) -> str:
    def one(ret: Return) -> str:
        if ret.type == BaseType(BaseTy.Tensor):
            return "at::Tensor &" if ret.is_write else "at::Tensor"
        if isinstance(ret.type, BaseType) and ret.type.name in _VALUE_TYPES:
            return _VALUE_TYPES[ret.type.name]
        raise SchemaParseError(f"no C++ return type for {ret}")

    if len(returns) == 0:
        return "void"
    if len(returns) == 1:
        return one(returns[0])
    return "::std::tuple<" + ",".join(one(r) for r in returns) + ">"


def _params(args: Sequence[Argument], *, symint: bool, out_const: bool = False) -> List[str]:
    params = []
    for a in args:
        mutable = a.is_write and not out_const
        params.append(f"{argument_type(a.type, mutable=mutable, symint=symint)} {a.name}")
    return params


# ------------------------------------------------------------------ dispatcher API


def dispatcher_params(func: FunctionSchema) -> List[str]:
    return _params(func.arguments.flat_all(), symint=True)


def dispatcher_function_type(func: FunctionSchema) -> str:
    """`at::Tensor (const at::Tensor &, c10::SymInt)`: the C++ function type of the kernels."""
    types = [argument_type(a.type, mutable=a.is_write, symint=True) for a in func.arguments.flat_all()]
    return f"{return_type(func.returns)} ({', '.join(types)})"


# ------------------------------------------------------------------ native API


def native_params(func: FunctionSchema, *, symint: bool) -> List[str]:
    return _params(func.arguments.flat_all(), symint=symint)


def native_arg_expr(arg: Argument, *, kernel_symint: bool) -> str:
    """How a wrapper passes a dispatcher argument on to a native kernel."""
    if kernel_symint or not arg.type.is_symint_like():
        return arg.name
    if isinstance(arg.type, BaseType):
        return f"{arg.name}.guard_int(__FILE__, __LINE__)"
    if isinstance(arg.type, ListType):
        return f"C10_AS_INTARRAYREF_SLOW({arg.name})"
    raise SchemaParseError(f"cannot convert {arg.type} {arg.name} to a plain int type")


# ------------------------------------------------------------------ structured API


def structured_meta_params(func: FunctionSchema) -> List[str]:
    """meta() takes the functional arguments, SymInts as ints."""
    return _params(func.arguments.flat_non_out(), symint=False)


def structured_impl_params(out_func: FunctionSchema) -> List[str]:
    """impl() takes the functional arguments then the outputs, as const Tensor&."""
    return _params(out_func.arguments.flat_all(), symint=False, out_const=True)


# ------------------------------------------------------------------ cpp (at::) API


def cpp_name(func: FunctionSchema) -> str:
    """`add_out` for add.out, `relu_` for relu_, `conv2d` for conv2d.padding."""
    name = str(func.name.name)
    return f"{name}_out" if func.is_out_fn() else name


def cpp_arguments(func: FunctionSchema) -> List[Argument]:
    """at::<op>_out takes its outputs first."""
    args = func.arguments
    return list(args.out) + list(args.flat_non_out()) if func.is_out_fn() else list(args.flat_all())


def cpp_params(func: FunctionSchema) -> List[str]:
    return _params(cpp_arguments(func), symint=False)
