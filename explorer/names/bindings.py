"""Which `native_functions.yaml` operators a Python name is bound to.

PyTorch generates its Python bindings at build time, so a source tree has no definition of
`torch.conv2d`; the YAML says what exists. Its rules, as the code generator applies them:
- ops with a `function` variant and no `python_module` are functions of
  `torch._C._VariableFunctions`, which `torch/__init__.py` copies into `torch` and which
  `torch._VF` forwards to;
- `python_module: nn` (or fft, linalg, special, nested, sparse) puts the function into
  `torch._C._nn` (`torch._C._fft`, ...) instead;
- ops with a `method` variant are methods of `torch.Tensor` (`torch._C.TensorBase`).
All overloads of a name share one binding, which picks among them by signature at run time.
"""

from __future__ import annotations

import re

from explorer.index import IndexReader
from explorer.model import Language, Symbol, SymbolKind
from explorer.names.test_code import is_test_code

# Python module prefix -> the python_module value its functions have (None: the default).
_FUNCTION_MODULES: dict[str, str | None] = {
    "torch": None,
    "torch._C._VariableFunctions": None,
    "torch._C._VariableFunctionsClass": None,
    "torch._VF": None,
    "_VF": None,
    "torch._C._nn": "nn",
    "torch._C._fft": "fft",
    "torch._C._linalg": "linalg",
    "torch._C._special": "special",
    "torch._C._nested": "nested",
    "torch._C._sparse": "sparse",
}
# torch's classes as a tree without torch's source (an extension's) names them as bases
TORCH_MODULE_CLASSES = frozenset({"torch.nn.Module", "torch.nn.modules.Module", "torch.nn.modules.module.Module"})
TORCH_AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
_METHOD_OWNERS = ("torch.Tensor", "torch._tensor.Tensor", "torch._C.TensorBase", "torch._C._TensorBase", "Tensor")


def binding_operators(reader: IndexReader, dotted: str) -> list[Symbol]:
    """The operators (all overloads) that the Python name `dotted` is bound to, if any."""
    owner, _, name = dotted.rpartition(".")
    if not owner or not name:
        return []
    if owner in _METHOD_OWNERS:
        return operators_for(reader, name, variant="method")
    if owner in _FUNCTION_MODULES:
        return operators_for(reader, name, variant="function", python_module=_FUNCTION_MODULES[owner])
    return []


def is_method_binding(qname: str) -> bool:
    """`torch._C.TensorBase.add`: a Tensor method, whose object is the schema's `self`."""
    return qname.rpartition(".")[0] in _METHOD_OWNERS


def is_out_overload(operator: Symbol) -> bool:
    """An operator that writes into tensors the caller passes as keyword-only arguments
    (`add.out(..., *, Scalar alpha=1, Tensor(a!) out)`): Python takes it only for `out=`.
    Told by the schema, not the overload's name (`topk.values`, `max.dim_max` are out forms)."""
    schema = operator.signature
    star = schema.find("*")
    arrow = schema.find("->")
    return star >= 0 and "!)" in schema[star : arrow if arrow > star else len(schema)]


def operators_for(reader: IndexReader, name: str, variant: str, python_module: str | None = None) -> list[Symbol]:
    found = []
    for symbol in reader.operators_named(name):
        info = reader.operator_info(symbol.qname)
        if info is None or variant not in info.variants:
            continue
        if variant == "function" and info.python_module != python_module:
            continue
        found.append(symbol)
    return sorted(found, key=lambda s: (s.qname != f"aten::{name}", s.qname))


def binding_symbol(reader: IndexReader, dotted: str, operators: list[Symbol]) -> Symbol:
    """The torch._C definition a bound name stands for: its `.pyi` stub when the tree has
    one (`torch._C._VariableFunctions.conv2d`), else a definition without a source."""
    owner, _, name = dotted.rpartition(".")
    if owner in _METHOD_OWNERS:
        qnames = [f"torch._C.TensorBase.{name}", f"torch._C._TensorBase.{name}"]
    else:
        module = _FUNCTION_MODULES.get(owner)
        qnames = [f"torch._C._VariableFunctions.{name}" if module is None else f"torch._C._{module}.{name}"]
    for qname in qnames:
        stubs = sorted(reader.symbols_with_qname(qname), key=lambda s: (s.path or "", s.line or 0))
        if stubs:
            return stubs[0]
    bound = ", ".join(s.qname for s in operators)
    return Symbol(
        qnames[0], name, SymbolKind.FUNCTION, Language.PYTHON, None, None, None, f"generated binding of {bound}"
    )


def stub_method(reader: IndexReader, name: str) -> Symbol | None:
    """The Tensor method `name` as the torch._C stub declares it (`size`, `to`, `uniform_`):
    what `x.name()` on an object of unknown type may be, besides an operator."""
    for owner in ("torch._C.TensorBase", "torch._C._TensorBase"):
        stubs = [s for s in reader.symbols_with_qname(f"{owner}.{name}") if s.path and s.path.endswith(".pyi")]
        if stubs:
            return min(stubs, key=lambda s: (s.path or "", s.line or 0))
    return None


def bound_stub(reader: IndexReader, dotted: str) -> Symbol | None:
    """A torch._C function or Tensor method that the stubs declare and no operator backs:
    `torch.Tensor._make_subclass`, `torch._C._set_grad_enabled`."""
    owner, _, name = dotted.rpartition(".")
    if owner in _METHOD_OWNERS:
        candidates = [f"torch._C.TensorBase.{name}", f"torch._C._TensorBase.{name}"]
    elif owner == "torch._C" or owner.startswith("torch._C."):
        candidates = [dotted]
    else:
        return None
    for qname in candidates:
        stubs = [s for s in reader.symbols_with_qname(qname) if s.path and s.path.endswith(".pyi")]
        if stubs:
            return min(stubs, key=lambda s: (s.path or "", s.line or 0))
    return None


_BINDING_KINDS = (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE)
_MAX_BASES_FOLLOWED = 32  # a class hierarchy deeper than this in bindings is not real code


def inherited_bindings(reader: IndexReader, class_qname: str, name: str) -> list[Symbol]:
    """The bindings of a method `name` that a class bound from C++ (or declared in a stub)
    has through its bases, nearest base first: `torch._C.ScriptModule._method_names` is bound
    on ScriptObject (`py::class_<Module, Object>`, and the stub's `class ScriptModule(ScriptObject)`).
    The `__init__` a stub declares for a type object that has only `tp_new` is its `__new__`.
    Bases are those the stub declares and the C++ bases of the py::class_ chain (each a bound
    class whose target is that type); the class's own bindings are not among them."""
    from explorer.parsers.cpp_bindings import BOUND_CLASS_BASES  # a parser's format, read here only

    if name == "__init__":  # a type object with no tp_init is made by its tp_new: torch._C.device(...)
        made = [s for s in reader.symbols_with_qname(f"{class_qname}.__new__") if s.kind in _BINDING_KINDS]
        if made:
            return made
    queue, seen = _class_bases(reader, class_qname, BOUND_CLASS_BASES), {class_qname}
    while queue and len(seen) <= _MAX_BASES_FOLLOWED:
        owner = queue.pop(0)
        if owner in seen:
            continue
        seen.add(owner)
        found = [s for s in reader.symbols_with_qname(f"{owner}.{name}") if s.kind in _BINDING_KINDS]
        if found:
            return found
        queue += _class_bases(reader, owner, BOUND_CLASS_BASES)
    return []


def bound_in_another_module(reader: IndexReader, stub_name: str, is_method: bool) -> Symbol | None:
    """The one binding of a stub's name that the extension binds in another of its modules:
    torch/_C/__init__.pyi.in declares `Def.name` in torch._C, python_tree_views.cpp binds it in
    torch._C._jit_tree_views; _dynamo/compiled_autograd.pyi's functions are bound in the module
    its PyModuleDef names torch._C._dynamo.autograd_compiler. The same last name (a method's
    with its class's), under the stub's top package (torch._C), outside tests; None unless
    exactly one binding fits."""
    parts = stub_name.split(".")
    tail = ".".join(parts[-2:]) if is_method else parts[-1]
    package = ".".join(parts[:2]) + "."
    kinds = (*_BINDING_KINDS, SymbolKind.BOUND_CLASS)
    found = {
        s.qname: s
        for s in reader.symbols_named(parts[-1].lower())
        if s.kind in kinds
        and s.name == parts[-1]
        and s.qname != stub_name
        and s.qname.startswith(package)
        and s.qname.endswith("." + tail)
        and not is_test_code(s.path)
    }
    if not is_method:  # a function or a class is a module's member, not a class's
        found = {
            qname: s
            for qname, s in found.items()
            if not any(o.kind is SymbolKind.BOUND_CLASS for o in reader.symbols_with_qname(qname.rpartition(".")[0]))
        }
    return next(iter(found.values())) if len(found) == 1 else None


def _class_bases(reader: IndexReader, class_qname: str, bound_class_bases: re.Pattern[str]) -> list[str]:
    """The Python names of a class's bases: a stub class's as written (`ScriptObject` is
    torch._C.ScriptObject, in the stub's module), a bound class's C++ bases by the bound
    classes that bind them (the same file's first)."""
    bases: list[str] = []
    for symbol in reader.symbols_with_qname(class_qname):
        if symbol.kind is SymbolKind.CLASS and (symbol.path or "").endswith((".pyi", ".pyi.in")):
            bases += [_stub_base(reader, class_qname, written) for written in _stub_bases(symbol.signature or "")]
        elif symbol.kind is SymbolKind.BOUND_CLASS:
            match = bound_class_bases.match(symbol.signature or "")
            for base in match.group(1).split(", ") if match else []:
                bound = [s for s in reader.symbols_targeting(base) if s.kind is SymbolKind.BOUND_CLASS]
                bases += [
                    s.qname for s in sorted(bound, key=lambda s: (s.path != symbol.path, s.path or "", s.line or 0))
                ]
    return bases


def _stub_base(reader: IndexReader, class_qname: str, written: str) -> str:
    """A base as a stub writes it, looked up from the class outward (`Backend.Options` in
    torch._C._distributed_c10d.ProcessGroupNCCL is torch._C._distributed_c10d.Backend.Options)."""
    scope = class_qname.rpartition(".")[0]
    while scope:
        if reader.symbols_with_qname(f"{scope}.{written}"):
            return f"{scope}.{written}"
        scope = scope.rpartition(".")[0]
    return written


def _stub_bases(signature: str) -> list[str]:
    """`class ScriptModule(ScriptObject):` -> ["ScriptObject"]; generics and keywords left out."""
    inside = signature.partition("(")[2].rpartition(")")[0]
    names = []
    depth, current = 0, ""
    for char in inside + ",":
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            written = current.strip()
            if written and "=" not in written and written.replace(".", "").replace("_", "").isalnum():
                names.append(written)
            current = ""
        elif depth == 0 and char not in "])":
            current += char
    return names
