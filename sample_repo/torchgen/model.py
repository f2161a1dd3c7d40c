"""The data model of native_functions.yaml.

Every entry is parsed into a NativeFunction: its FunctionSchema (the `func:`
string: name, overload, arguments, returns) plus the entry's other fields
(`dispatch:`, `variants:`, `python_module:`, `structured:` ...). All classes
are frozen dataclasses, so parsed entries can be shared and hashed freely.

The schema language, as far as the sample tree uses it:

    add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)

Types are a base type (Tensor, SymInt, int, float, bool, str, Scalar,
ScalarType, Layout, Device, MemoryFormat), optionally made a list (`[]`,
`[2]`) and/or optional (`?`). `Tensor(a)` / `Tensor(a!)` carry an alias
annotation; `!` marks a tensor the op writes to. Arguments after `*` are
keyword-only; keyword-only mutable tensors are the outputs of an out= variant.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

__all__ = [
    "Location",
    "DispatchKey",
    "Variant",
    "BaseTy",
    "Type",
    "BaseType",
    "OptionalType",
    "ListType",
    "Annotation",
    "Argument",
    "Return",
    "Arguments",
    "BaseOperatorName",
    "OperatorName",
    "FunctionSchema",
    "BackendMetadata",
    "NativeFunction",
    "NativeFunctionsGroup",
    "SchemaParseError",
]


class SchemaParseError(ValueError):
    """A `func:` string or an entry field that the model cannot read."""


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class DispatchKey(enum.Enum):
    """Keys a kernel can be registered under (mirrors c10/core/DispatchKey.h)."""

    CPU = "CPU"
    CUDA = "CUDA"
    CompositeExplicitAutograd = "CompositeExplicitAutograd"
    CompositeImplicitAutograd = "CompositeImplicitAutograd"

    @staticmethod
    def parse(value: str) -> "DispatchKey":
        try:
            return DispatchKey[value]
        except KeyError:
            raise SchemaParseError(f"unknown dispatch key {value!r}") from None

    def is_backend(self) -> bool:
        return self in (DispatchKey.CPU, DispatchKey.CUDA)


class Variant(enum.Enum):
    function = "function"
    method = "method"


# ------------------------------------------------------------------ types


class BaseTy(enum.Enum):
    Tensor = "Tensor"
    SymInt = "SymInt"
    int = "int"
    float = "float"
    bool = "bool"
    str = "str"
    Scalar = "Scalar"
    ScalarType = "ScalarType"
    Layout = "Layout"
    Device = "Device"
    MemoryFormat = "MemoryFormat"


@dataclass(frozen=True)
class BaseType:
    name: BaseTy

    def __str__(self) -> str:
        return self.name.value

    def is_tensor_like(self) -> bool:
        return self.name is BaseTy.Tensor

    def is_symint_like(self) -> bool:
        return self.name is BaseTy.SymInt

    def is_nullable(self) -> bool:
        return False

    def is_list_like(self) -> Optional["ListType"]:
        return None


@dataclass(frozen=True)
class OptionalType:
    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"

    def is_tensor_like(self) -> bool:
        return self.elem.is_tensor_like()

    def is_symint_like(self) -> bool:
        return self.elem.is_symint_like()

    def is_nullable(self) -> bool:
        return True

    def is_list_like(self) -> Optional["ListType"]:
        return self.elem.is_list_like()


@dataclass(frozen=True)
class ListType:
    elem: "Type"
    size: Optional[int]

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"

    def is_tensor_like(self) -> bool:
        return self.elem.is_tensor_like()

    def is_symint_like(self) -> bool:
        return self.elem.is_symint_like()

    def is_nullable(self) -> bool:
        return False

    def is_list_like(self) -> Optional["ListType"]:
        return self


Type = Union[BaseType, OptionalType, ListType]

_TYPE = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z_0-9]*)(?P<suffix>(\[\d*\]|\?)*)$")


def parse_type(text: str) -> Type:
    match = _TYPE.match(text)
    if match is None:
        raise SchemaParseError(f"cannot parse type {text!r}")
    try:
        ty: Type = BaseType(BaseTy(match["base"]))
    except ValueError:
        raise SchemaParseError(f"unknown base type {match['base']!r} in {text!r}") from None
    for suffix in re.findall(r"\[\d*\]|\?", match["suffix"]):
        if suffix == "?":
            ty = OptionalType(ty)
        else:
            size = suffix[1:-1]
            ty = ListType(ty, int(size) if size else None)
    return ty


# ------------------------------------------------------------------ arguments


@dataclass(frozen=True)
class Annotation:
    """The `(a!)` of `Tensor(a!)`: alias set names and whether the op writes."""

    alias_set: Tuple[str, ...]
    is_write: bool

    @staticmethod
    def parse(text: str) -> "Annotation":
        is_write = text.endswith("!")
        names = text[:-1] if is_write else text
        return Annotation(tuple(names.split("|")), is_write)

    def __str__(self) -> str:
        return "|".join(self.alias_set) + ("!" if self.is_write else "")


_ANNOTATED = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z_0-9]*)\((?P<annotation>[a-z|]+!?)\)(?P<rest>.*)$")


def _annotated_type(ty: "Type", annotation: Optional[Annotation]) -> str:
    """`Tensor(a!)`, `Tensor(a)[]`: the annotation sits right after the base type name."""
    text = str(ty)
    if annotation is None:
        return text
    base = re.match(r"[A-Za-z_][A-Za-z_0-9]*", text).group(0)  # type: ignore[union-attr]
    return f"{base}({annotation}){text[len(base):]}"


def _split_annotation(text: str) -> Tuple[str, Optional[Annotation]]:
    match = _ANNOTATED.match(text)
    if match is None:
        return text, None
    return match["base"] + match["rest"], Annotation.parse(match["annotation"])


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: Optional[str]  # as written in the schema: "None", "1", "[]", '"valid"', "False"
    annotation: Optional[Annotation]

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    @staticmethod
    def parse(text: str) -> "Argument":
        type_and_name, _, default = text.partition("=")
        type_text, _, name = type_and_name.strip().rpartition(" ")
        if not type_text or not name:
            raise SchemaParseError(f"cannot parse argument {text!r}")
        type_text, annotation = _split_annotation(type_text.strip())
        return Argument(
            name=name,
            type=parse_type(type_text),
            default=default.strip() if default else None,
            annotation=annotation,
        )

    def __str__(self) -> str:
        text = f"{_annotated_type(self.type, self.annotation)} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@dataclass(frozen=True)
class Return:
    name: Optional[str]
    type: Type
    annotation: Optional[Annotation]

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    @staticmethod
    def parse(text: str) -> "Return":
        type_text, _, name = text.strip().partition(" ")
        type_text, annotation = _split_annotation(type_text)
        return Return(name=name or None, type=parse_type(type_text), annotation=annotation)

    def __str__(self) -> str:
        ty = _annotated_type(self.type, self.annotation)
        return ty if self.name is None else f"{ty} {self.name}"


def _split_top_level(text: str) -> List[str]:
    """Split on commas outside brackets and quotes."""
    parts: List[str] = []
    depth = 0
    quote: Optional[str] = None
    current = []
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


@dataclass(frozen=True)
class Arguments:
    """Positional arguments, keyword-only arguments, and the outputs of an out= variant."""

    positional: Tuple[Argument, ...]
    kwarg_only: Tuple[Argument, ...]
    out: Tuple[Argument, ...]

    @staticmethod
    def parse(text: str) -> "Arguments":
        positional: List[Argument] = []
        kwarg_only: List[Argument] = []
        out: List[Argument] = []
        seen_star = False
        for part in _split_top_level(text):
            if part == "*":
                if seen_star:
                    raise SchemaParseError("two '*' markers in one argument list")
                seen_star = True
                continue
            arg = Argument.parse(part)
            if not seen_star:
                positional.append(arg)
            elif arg.is_write and arg.type.is_tensor_like():
                out.append(arg)
            else:
                if out:
                    raise SchemaParseError(f"keyword argument {arg.name} follows the out arguments")
                kwarg_only.append(arg)
        return Arguments(tuple(positional), tuple(kwarg_only), tuple(out))

    def flat_all(self) -> Tuple[Argument, ...]:
        """Every argument in schema order (the order of the C++ dispatcher signature)."""
        return self.positional + self.kwarg_only + self.out

    def flat_non_out(self) -> Tuple[Argument, ...]:
        return self.positional + self.kwarg_only

    def __str__(self) -> str:
        parts = [str(a) for a in self.positional]
        if self.kwarg_only or self.out:
            parts.append("*")
        parts.extend(str(a) for a in self.kwarg_only + self.out)
        return ", ".join(parts)


# ------------------------------------------------------------------ names and schemas


@dataclass(frozen=True)
class BaseOperatorName:
    base: str  # "relu" for both relu and relu_
    inplace: bool  # trailing underscore

    @staticmethod
    def parse(text: str) -> "BaseOperatorName":
        # relu_ is the in-place variant of relu; dunders (__and__) are not in-place
        if len(text) > 1 and text.endswith("_") and not text.endswith("__"):
            return BaseOperatorName(text[:-1], True)
        return BaseOperatorName(text, False)

    def __str__(self) -> str:
        return self.base + ("_" if self.inplace else "")


@dataclass(frozen=True)
class OperatorName:
    name: BaseOperatorName
    overload_name: str

    @staticmethod
    def parse(text: str) -> "OperatorName":
        name, _, overload = text.partition(".")
        return OperatorName(BaseOperatorName.parse(name), overload)

    def __str__(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else str(self.name)

    def unambiguous_name(self) -> str:
        """`conv2d_padding`, `add_out`, `relu_`: the name of the at::_ops struct."""
        return f"{self.name}_{self.overload_name}" if self.overload_name else str(self.name)


_SCHEMA = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z_0-9.]*)\((?P<args>.*)\)\s*->\s*(?P<returns>.+)$")


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: Arguments
    returns: Tuple[Return, ...]

    @staticmethod
    def parse(text: str) -> "FunctionSchema":
        match = _SCHEMA.match(text.strip())
        if match is None:
            raise SchemaParseError(f"cannot parse schema {text!r}")
        returns_text = match["returns"].strip()
        if returns_text.startswith("(") and returns_text.endswith(")"):
            returns = tuple(Return.parse(r) for r in _split_top_level(returns_text[1:-1]))
        else:
            returns = (Return.parse(returns_text),)
        schema = FunctionSchema(
            name=OperatorName.parse(match["name"]),
            arguments=Arguments.parse(match["args"]),
            returns=returns,
        )
        schema._check()
        return schema

    def _check(self) -> None:
        names = [a.name for a in self.arguments.flat_all()]
        if len(names) != len(set(names)):
            raise SchemaParseError(f"{self.name}: duplicate argument names")
        if self.arguments.out:
            if len(self.returns) != len(self.arguments.out):
                raise SchemaParseError(f"{self.name}: an out= variant returns its out arguments")
            for ret, out in zip(self.returns, self.arguments.out):
                if ret.annotation != out.annotation:
                    raise SchemaParseError(f"{self.name}: return {ret} does not alias out argument {out.name}")

    def is_out_fn(self) -> bool:
        return bool(self.arguments.out)

    def is_inplace(self) -> bool:
        return self.name.name.inplace

    def kind(self) -> str:
        if self.is_out_fn():
            return "out"
        if self.is_inplace():
            return "inplace"
        return "functional"

    def signature_key(self) -> str:
        """The schema with out arguments and the overload dropped: groups functional and out variants."""
        args = ", ".join(str(dataclasses.replace(a, annotation=None)) for a in self.arguments.flat_non_out())
        return f"{self.name.name.base}({args})"

    def __str__(self) -> str:
        returns = ", ".join(str(r) for r in self.returns)
        if len(self.returns) != 1:
            returns = f"({returns})"
        return f"{self.name}({self.arguments}) -> {returns}"


# ------------------------------------------------------------------ native functions


@dataclass(frozen=True)
class BackendMetadata:
    kernel: str  # at::native::<kernel>, or for structured ops the class structured_<kernel>
    structured: bool

    def supports_symint(self) -> bool:
        """Kernels whose name ends in _symint take SymInt arguments; the others take ints."""
        return self.kernel.endswith("_symint")


_KNOWN_FIELDS = {
    "func", "dispatch", "variants", "python_module", "structured", "structured_delegate",
    "device_check", "device_guard", "autogen", "tags", "cpp_no_default_args", "manual_cpp_binding",
    "category_override", "use_const_ref_for_mutable_tensors",
}


@dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    loc: Location
    variants: Tuple[Variant, ...]
    python_module: Optional[str]
    structured: bool
    structured_delegate: Optional[OperatorName]
    dispatch: Tuple[Tuple[DispatchKey, BackendMetadata], ...]  # in yaml order, one row per key
    device_check: bool  # False for `device_check: NoCheck`
    device_guard: bool
    autogen: Tuple[str, ...]
    tags: Tuple[str, ...]
    cpp_no_default_args: Tuple[str, ...]
    has_explicit_dispatch: bool

    @staticmethod
    def from_yaml(entry: Dict[str, object], loc: Location) -> "NativeFunction":
        unknown = set(entry) - _KNOWN_FIELDS
        if unknown:
            raise SchemaParseError(f"{loc}: unknown fields {sorted(unknown)}")
        func_text = entry.get("func")
        if not isinstance(func_text, str):
            raise SchemaParseError(f"{loc}: entry without a `func:` string")
        func = FunctionSchema.parse(func_text)

        variants_text = str(entry.get("variants", "function"))
        variants = tuple(Variant(v.strip()) for v in variants_text.split(",") if v.strip())

        structured = bool(entry.get("structured", False))
        delegate_text = entry.get("structured_delegate")
        structured_delegate = OperatorName.parse(str(delegate_text)) if delegate_text else None

        raw_dispatch = entry.get("dispatch")
        rows: List[Tuple[DispatchKey, BackendMetadata]] = []
        if raw_dispatch is not None:
            if not isinstance(raw_dispatch, dict):
                raise SchemaParseError(f"{loc}: `dispatch:` must be a mapping")
            for keys, kernel in raw_dispatch.items():
                for key in str(keys).split(","):
                    rows.append((DispatchKey.parse(key.strip()), BackendMetadata(str(kernel), structured)))
        elif structured_delegate is None:
            # No dispatch table: a CompositeImplicitAutograd kernel named after the op.
            rows.append((DispatchKey.CompositeImplicitAutograd, BackendMetadata(str(func.name.name), False)))
        if structured_delegate is not None and raw_dispatch is not None:
            raise SchemaParseError(f"{loc}: structured_delegate entries take their kernels from the delegate")

        autogen_text = entry.get("autogen", "")
        tags = entry.get("tags", ())
        if isinstance(tags, str):
            tags = (tags,)
        cpp_no_default = entry.get("cpp_no_default_args", ())
        return NativeFunction(
            func=func,
            loc=loc,
            variants=variants,
            python_module=str(entry["python_module"]) if "python_module" in entry else None,
            structured=structured,
            structured_delegate=structured_delegate,
            dispatch=tuple(rows),
            device_check=str(entry.get("device_check", "ExactSame")) != "NoCheck",
            device_guard=bool(entry.get("device_guard", True)),
            autogen=tuple(a.strip() for a in str(autogen_text).split(",") if a.strip()),
            tags=tuple(str(t) for t in tags),
            cpp_no_default_args=tuple(str(a) for a in cpp_no_default),
            has_explicit_dispatch=raw_dispatch is not None,
        )

    @property
    def root_name(self) -> str:
        return self.func.name.name.base

    def dispatch_keys(self) -> Tuple[DispatchKey, ...]:
        return tuple(key for key, _ in self.dispatch)

    def backend_metadata(self, key: DispatchKey) -> Optional[BackendMetadata]:
        for row_key, meta in self.dispatch:
            if row_key is key:
                return meta
        return None


@dataclass(frozen=True)
class NativeFunctionsGroup:
    """A structured op: the out= variant that owns the kernels, and the functional
    (and in-place) variants that delegate to it."""

    functional: NativeFunction
    out: NativeFunction
    inplace: Optional[NativeFunction]

    def functions(self) -> Iterator[NativeFunction]:
        yield self.functional
        yield self.out
        if self.inplace is not None:
            yield self.inplace

    def meta_class_name(self) -> str:
        """`structured_add_Tensor`: the at::meta class with the shape-checking meta()."""
        return f"structured_{self.functional.func.name.unambiguous_name()}"


def group_structured(functions: Sequence[NativeFunction]) -> List[NativeFunctionsGroup]:
    by_name = {f.func.name: f for f in functions}
    groups: List[NativeFunctionsGroup] = []
    for out in functions:
        if not out.structured:
            continue
        if not out.func.is_out_fn():
            raise SchemaParseError(f"{out.loc}: `structured: True` belongs on the out= variant")
        delegates = [f for f in functions if f.structured_delegate == out.func.name]
        functional = [f for f in delegates if f.func.kind() == "functional"]
        inplace = [f for f in delegates if f.func.kind() == "inplace"]
        if len(functional) != 1:
            raise SchemaParseError(f"{out.loc}: structured op {out.func.name} needs exactly one functional delegate")
        groups.append(NativeFunctionsGroup(functional[0], out, inplace[0] if inplace else None))
    for f in functions:
        if f.structured_delegate is not None and f.structured_delegate not in by_name:
            raise SchemaParseError(f"{f.loc}: structured_delegate {f.structured_delegate} does not exist")
    return groups


def parse_native_yaml(path: str) -> List[NativeFunction]:
    """Every entry of a native_functions.yaml, with its line number."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    entries = _load_yaml_entries(text, path)
    return [NativeFunction.from_yaml(entry, Location(path, line)) for entry, line in entries]


def _load_yaml_entries(text: str, path: str) -> List[Tuple[Dict[str, object], int]]:
    """The top-level list of mappings, each with the line its `- func:` is on."""
    try:
        import yaml
    except ImportError:  # PyYAML is optional: the file only uses a small subset of YAML
        from torchgen.yaml_subset import load_entries

        return load_entries(text, path)
    loader_base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class LineLoader(loader_base):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node, deep=False):  # noqa: ANN001
            mapping = super().construct_mapping(node, deep=deep)
            if "func" in mapping:
                mapping["__line__"] = node.start_mark.line + 1
            return mapping

    entries = yaml.load(text, Loader=LineLoader)
    if not isinstance(entries, list):
        raise SchemaParseError(f"{path}: expected a list of entries")
    result = []
    for entry in entries:
        if not isinstance(entry, dict) or "__line__" not in entry:
            raise SchemaParseError(f"{path}: every entry must be a mapping with a `func:` field")
        line = entry.pop("__line__")
        result.append((entry, line))
    return result
