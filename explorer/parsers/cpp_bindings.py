"""Where one C++ file registers functions with PyTorch's dispatcher or binds them to Python.

Operator registrations, as extensions and PyTorch itself write them:
- `TORCH_LIBRARY(ns, m)` / `TORCH_LIBRARY_FRAGMENT(ns, m)` with `m.def("op(schema) -> ...")`,
  `m.def("op", &fn)` (a schema inferred from fn, fn the kernel for every key);
- `TORCH_LIBRARY_IMPL(ns, Key, m)` with `m.impl("op", &fn)`;
- `torch::RegisterOperators().op("ns::op", &fn)` chains (fn the kernel for every key);
with the names in `TORCH_SELECTIVE_SCHEMA(...)` / `TORCH_SELECTIVE_NAME(...)` and the kernels
as `&fn`, `fn`, `TORCH_FN(fn)` or a lambda. Each operator is an OPERATOR symbol named
`ns::op` (`ns::op.overload`) with its schema, or its name, as signature; each kernel a row of
its dispatch table, the kernel as written prefixed by the namespaces around the registration
(resolve/nodes.py looks it up outward from there, as C++ does). A kernel
for every key is filed under CompositeImplicitAutograd, which runs on every backend.

pybind11: `PYBIND11_MODULE(name, m)` with `m.def("f", &fn)`, `py::class_<T>(m, "Py")` and its
`.def`, `.def_static`, `.def(py::init<...>())`, `.def_property[_readonly]`, and submodules made
with `auto sub = m.def_submodule("sub")`. Each is a PYBIND symbol named by the Python dotted
name under the module as written (`TORCH_EXTENSION_NAME.f`: which module the extension is,
setup.py says; names/extensions.py reads it), its target the C++ function as written.

CPython method tables: `static PyMethodDef methods[] = {{"_cuda_init", fn, METH_NOARGS, doc}, ...}`,
each entry a METHOD_TABLE symbol named by the Python name: the module a PyModuleDef of the same
file names with the table, else the type a PyTypeObject of the file names (its tp_name), else
`torch._C` for PyTorch's own tables (torch/csrc/Module.cpp adds them to torch._C at run time),
else the file's name, which the signature says is a guess.

A lambda kernel or binding is a definition of its own, `ns::<lambda at line N>`, holding the
calls inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from explorer import treesitter as tsx
from explorer.model import DispatchEntry, Language, ModuleArgument, Symbol, SymbolKind
from explorer.parsers import cpp_types
from explorer.parsers.common import collapse, strip_template_args
from explorer.parsers.cpp_modules import ModuleValues, PyClass, PyModule, PyName, Value, string_literal
from explorer.parsers.cpp_modules import call_arguments as _arguments
from explorer.parsers.python_operators import BINARY, COMPARISON, UNARY

_OPERATOR_BLOCKS = ("TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL")
_PYBIND_BLOCKS = ("PYBIND11_MODULE",)
CATCH_ALL_KEY = "CompositeImplicitAutograd"  # a kernel given with the definition runs for every key
_UNWRAP = (  # what a kernel is written inside: each gives the expression within
    # (SINGLE_ARG: functorch's `#define SINGLE_ARG(...) __VA_ARGS__`, from a header, around a
    # template argument list that holds commas: `SINGLE_ARG(boxed_reduction_batch_rule<1, ...>)`)
    re.compile(r"^(?:TORCH_SELECTIVE_SCHEMA|TORCH_SELECTIVE_NAME|TORCH_FN|TORCH_FN_TYPE|SINGLE_ARG)\s*\((.*)\)$", re.S),
    re.compile(r"^(?:py|pybind11)::overload_cast\s*<.*?>\s*\((.*)\)$", re.S),
    re.compile(r"^(?:static_cast|reinterpret_cast)\s*<.*>\s*\((.*)\)$", re.S),
    re.compile(r"^(?:torch::|c10::)?CppFunction::makeFromBoxedFunction\s*<\s*(.*?)\s*>\s*\(\s*\)$", re.S),
    re.compile(r"^(?:torch::)?dispatch\s*\([^,]*,\s*(.*)\)$", re.S),
    re.compile(r"^castPyCFunction\w*\s*\((.*)\)$", re.S),  # PyTorch's casts of a method table's function
    re.compile(r"^\((?:[^()]|\([^()]*\))*\)\s*(.+)$", re.S),  # a C cast: `(PyCFunction)(void (*)(void))fn`
    # a helper handed one function, which it wraps: `torch::wrap_pybind_function_no_gil(&CUDAGraph::capture_end)`
    re.compile(r"^[\w:]+(?:\s*<[^()]*>)?\s*\(\s*(&\s*[\w:]+(?:::operator\W{1,3})?)\s*\)$", re.S),
    # a wrapper named so, handed a function by name: `wrap_pybind_function(ONNXFunctionCallSubstitution)`
    # (another helper handed a plain name may call it or make something else of it)
    re.compile(r"^(?:[\w:]*::)?\w*wrap\w*(?:\s*<[^()]*>)?\s*\(\s*([\w:]+)\s*\)$", re.S),
)
_PYBIND_MEMBERS = ("def", "def_static", "def_property", "def_property_readonly", "def_readwrite", "def_readonly")

# The namespaces around a syntax node, outermost first.
ScopeOf = Callable[[tsx.Node], list[str]]


@dataclass(frozen=True, slots=True)
class _Block:
    """A registration macro's body: `TORCH_LIBRARY_IMPL(ns, CUDA, m) { ... }`."""

    macro: str
    arguments: tuple[str, ...]

    @property
    def module_variable(self) -> str:
        return self.arguments[-1] if self.arguments else ""


@dataclass(frozen=True, slots=True)
class LambdaKernel:
    """A lambda registered as a kernel or bound as a function: a definition of its own, so
    that the calls inside it are its calls."""

    symbol: Symbol
    start_byte: int
    end_byte: int


@dataclass(slots=True)
class PythonModules:
    """What a file does with Python module objects: each function's module and class values,
    the classes it binds, and the modules it hands to other functions."""

    values: dict[int, ModuleValues]  # by the id of the function definition node
    classes: list[Symbol]
    arguments: list[ModuleArgument]
    placed: dict[str, list[str]]  # a type object's variable -> the dotted names modules give it

    def around(self, node: tsx.Node) -> ModuleValues | None:
        """The values of the function that holds `node`."""
        parent = node.parent
        while parent is not None:
            if parent.type == "function_definition":
                return self.values.get(parent.id)
            parent = parent.parent
        return None


_MENTIONS_PYTHON = re.compile(rb"py::|pybind11|PYBIND11|PyModule_|PyImport_Import|PyObject")


def python_modules(root: tsx.Node, source: bytes, lang: Language, path: str, scope_of: ScopeOf) -> PythonModules:
    """Follow module values through every function of the file (parsers/cpp_modules.py)."""
    found = PythonModules({}, [], [], {})
    if not _MENTIONS_PYTHON.search(source):
        return found
    text = source.decode("utf-8", "replace")
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type != "function_definition":
            stack.extend(node.named_children)
            continue
        scope = scope_of(node)
        block = _block_of(node)
        if block is not None and block.macro in _PYBIND_BLOCKS and block.arguments:
            values = ModuleValues(node, None, text, {block.module_variable: PyModule(block.arguments[0])})
        elif block is None:
            name = collapse(tsx.text(_function_name(node))).replace(" ", "")
            if not name:
                continue
            values = ModuleValues(node, "::".join([*scope, name]), text)
        else:
            continue
        if not values.values:
            continue
        found.values[node.id] = values
        body = node.child_by_field_name("body")
        for call in _calls_in(body) if body is not None else []:
            found.arguments.extend(values.passed(call, scope))
            placed = values.placement(call)
            if placed is not None:
                found.placed.setdefault(placed[0], []).append(placed[1])
        for made in values.classes.values():
            cpp = _qualified(made.cpp, scope)
            bases = (
                f"({', '.join(strip_template_args(_qualified(base, scope)) for base in made.bases)})"
                if made.bases
                else ""
            )
            statement = f"class {made.name.rpartition('.')[2]}{bases}: binds {made.cpp}"
            name = made.name.rpartition(".")[2]
            found.classes.append(
                Symbol(
                    made.name,
                    name,
                    SymbolKind.BOUND_CLASS,
                    lang,
                    path,
                    made.line,
                    made.line,
                    statement,
                    strip_template_args(cpp),
                )
            )
    found.classes.sort(key=lambda s: (s.line or 0, s.qname))
    found.arguments.sort(key=lambda a: (a.line, a.index, a.callee))
    return found


def _qualified(written: str, scope: list[str]) -> str:
    """A C++ name as written, with the namespaces around it in front (as registrations keep
    it: lookups try each namespace run, nodes.registered_functions); `::x` as is."""
    return written.removeprefix("::") if written.startswith("::") or not scope else "::".join([*scope, written])


# `class ScriptModule(torch::jit::Object): binds Module`: the C++ bases a bound class's
# signature lists, qualified as its target is
BOUND_CLASS_BASES = re.compile(r"^class [^(:]+\(([^)]*)\): binds ")


def _function_name(function: tsx.Node) -> tsx.Node | None:
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return declarator.child_by_field_name("declarator") if declarator is not None else None


def _calls_in(body: tsx.Node) -> list[tsx.Node]:
    calls, stack = [], [body]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            calls.append(node)
        if node.type != "lambda_expression":
            stack.extend(node.named_children)
    return calls


def registrations(
    calls: list[tsx.Node],
    lang: Language,
    path: str,
    scope_of: ScopeOf,
    modules: PythonModules | None = None,
) -> tuple[list[Symbol], list[DispatchEntry], list[LambdaKernel]]:
    """The operators, kernels and Python bindings the registration calls (`@registration.call`
    captures: calls of a member named def, impl, op, ...) make, and the lambdas among their
    kernels. `scope_of(node)` gives the namespaces around a node, outermost first; `modules`,
    which Python module or class each value of a function is (python_modules)."""
    symbols: list[Symbol] = []
    dispatch: list[DispatchEntry] = []
    registering: list[tsx.Node] = []  # the calls that do register (a lambda in another `.def` is no kernel)
    chained_lambdas: list[tsx.Node] = []  # lambdas an older registration's options chain registers
    for call in sorted(calls, key=lambda node: node.start_byte):
        function = call.child_by_field_name("function")
        field = function.child_by_field_name("field") if function is not None else None
        receiver = function.child_by_field_name("argument") if function is not None else None
        arguments = _arguments(call)
        if field is None or receiver is None or not arguments:
            continue
        member = tsx.text(field)
        line = tsx.line(field)  # `.op(` of a chain, not the chain's start
        # `m.def("f", &f)`; of a chain, only its own link: `.op("ns::op", &fn)`
        written_receiver = tsx.text(receiver) if receiver.type == "identifier" else ""
        statement = f"{written_receiver}.{member}{collapse(tsx.text(call.child_by_field_name('arguments')))}"[:300]
        root = _chain_root(receiver)
        if member == "op" and "RegisterOperators" in tsx.text(root.child_by_field_name("function") or root):
            # torch::RegisterOperators().op("ns::op(schema)", &fn)
            registering.append(call)
            if _string(arguments[0]) is None:  # .op(RegisterOperators::options().schema(...).kernel<...>(Key)...)
                name, kernels = _options_chain(arguments[0], scope_of(call))
                if name is not None:
                    symbols.append(_operator(name, statement, lang, path, line))
                    dispatch.extend(
                        DispatchEntry(name, key, kernel, kernel_line) for key, kernel, kernel_line in kernels
                    )
                chained_lambdas.extend(_lambdas_in(arguments[0]))
                continue
            name = _operator_name(_string(arguments[0]), None)
            if name is not None:
                schema = _string(arguments[0]) or ""
                symbols.append(_operator(name, schema if "(" in schema else statement, lang, path, line))
                if len(arguments) > 1 and "options()" in tsx.text(arguments[1]):  # .op("ns::op(...)", options()...)
                    _, kernels = _options_chain(arguments[1], scope_of(call))
                    dispatch.extend(
                        DispatchEntry(name, key, kernel, kernel_line) for key, kernel, kernel_line in kernels
                    )
                    chained_lambdas.extend(_lambdas_in(arguments[1]))
                    continue
                kernel = _kernel(arguments[1], scope_of(call)) if len(arguments) > 1 else None
                if kernel is not None:
                    dispatch.append(DispatchEntry(name, CATCH_ALL_KEY, kernel, line))
            continue
        _block_node, block = _block_around(call)
        if block is not None and block.macro in _OPERATOR_BLOCKS and tsx.text(receiver) == block.module_variable:
            registering.append(call)
            namespace = block.arguments[0] if block.arguments else None
            name = _operator_name(_string(arguments[0]), namespace)
            if name is None:
                continue
            if member == "def":
                schema = _string(arguments[0]) or ""
                symbols.append(_operator(name, schema if "(" in schema else statement, lang, path, line))
                # `m.def(schema, {at::Tag::pt2_compliant_tag})`: tags, not a kernel
                given = len(arguments) > 1 and arguments[1].type != "initializer_list"
                kernel = _kernel(arguments[1], scope_of(call)) if given else None
                if kernel is not None:
                    dispatch.append(DispatchEntry(name, _key(arguments[1], CATCH_ALL_KEY), kernel, line))
            elif member == "impl" and len(arguments) > 1:
                key = (
                    block.arguments[1]
                    if block.macro == "TORCH_LIBRARY_IMPL" and len(block.arguments) > 2
                    else CATCH_ALL_KEY
                )
                kernel = _kernel(arguments[1], scope_of(call))
                if kernel is not None:
                    dispatch.append(DispatchEntry(name, _key(arguments[1], key), kernel, line))
        elif modules is not None and member in _PYBIND_MEMBERS:
            values = modules.around(call)
            bound = values.of(receiver) if values is not None else None
            if bound is not None:
                registering.append(call)
                if isinstance(bound, PyClass) and tsx.text(arguments[0]).replace(" ", "").startswith(
                    ("py::init(", "pybind11::init(")
                ):
                    chained_lambdas.extend(_lambdas_in(arguments[0]))  # py::init([](...) {...})
                name = _string(arguments[0]) or (values.name_of(arguments[0]) if values is not None else None)
                symbols.extend(_pybind(call, member, bound, name, arguments, lang, path, line, statement, scope_of))
    written_lambdas = (_wrapped_lambda(a) for call in registering for a in _arguments(call)[1:])
    lambdas = [
        lambda_definition(argument, lang, path, scope_of(argument))
        for argument in [*written_lambdas, *chained_lambdas]
        if argument is not None and argument.type == "lambda_expression"
    ]
    return symbols, dispatch, lambdas


def lambda_definition(node: tsx.Node, lang: Language, path: str, scope: list[str]) -> LambdaKernel:
    """The definition a lambda is, `scope::<lambda at line N>`, with its first line."""
    name = _lambda_name(node)
    first_line = collapse(tsx.text(node).split("{", 1)[0])[:300]
    # named by its line, which another file of the namespace may share: only its own file names it
    symbol = Symbol(
        "::".join([*scope, name]),
        name,
        SymbolKind.FUNCTION,
        lang,
        path,
        tsx.line(node),
        tsx.end_line(node),
        first_line,
        file_local=True,
    )
    return LambdaKernel(symbol, node.start_byte, node.end_byte)


def _lambda_name(node: tsx.Node) -> str:
    return f"<lambda at line {tsx.line(node)}>"


def method_tables(
    tables: list[tsx.Node], source: bytes, lang: Language, path: str, scope_of: ScopeOf, placed: dict[str, list[str]]
) -> tuple[list[Symbol], list[ModuleArgument]]:
    """The entries of the file's PyMethodDef and PyGetSetDef tables (`@method_table` captures),
    and its type objects as classes with the special methods their slots give
    (parsers/cpp_types.py). A table defined in another file and added to one of this file's
    types is handed that type, as a module is handed to an init function: its entries, named
    `<arg 0 of ns::table>.name` where it is defined, are the type's methods."""
    text = source.decode("utf-8", "replace")
    types = cpp_types.type_objects(text) if "PyTypeObject" in text else []
    entries: list[Symbol] = []
    handed: list[ModuleArgument] = []
    defined = set()
    for table in tables:
        declarator = table.child_by_field_name("declarator")
        array = declarator.child_by_field_name("declarator") if declarator is not None else None
        defined.add(tsx.text(array.child_by_field_name("declarator") or array) if array is not None else "")
    for table in tables:
        declarator = table.child_by_field_name("declarator")
        array = declarator.child_by_field_name("declarator") if declarator is not None else None
        name = tsx.text(array.child_by_field_name("declarator") or array) if array is not None else ""
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if not name or value is None:
            continue
        owners, guessed = _table_owners(name, text, path, types, placed, "::".join([*scope_of(table), name]))
        note = "  [module not named in the tree: named after the file]" if guessed else ""
        for entry in value.named_children:
            if entry.type == "compound_literal_expression":  # `#ifdef USE_NCCL {"_nccl_version", ...}`
                entry = entry.child_by_field_name("value") or entry
            fields = (
                [child for child in entry.named_children if child.type != "comment"]
                if entry.type == "initializer_list"
                else []
            )
            python_name = _string(fields[0]) if fields else None
            if python_name is None or len(fields) < 2:
                continue
            target = _target([fields[1]], scope_of(entry)) or None
            statement = collapse(tsx.text(entry))[:300] + note
            line = tsx.line(entry)
            entries.extend(
                Symbol(
                    f"{owner}.{python_name}",
                    python_name,
                    SymbolKind.METHOD_TABLE,
                    lang,
                    path,
                    line,
                    line,
                    statement,
                    target,
                )
                for owner in owners
            )
    scope = scope_of(tables[0]) if tables else []
    for type_object in types:
        names = placed.get(type_object.variable) or ([type_object.tp_name] if type_object.tp_name else [])
        for type_name in names:
            entries.extend(_type_methods(type_object, type_name, text, lang, path, scope))
        slot_line = type_object.slots["tp_methods"][1] if "tp_methods" in type_object.slots else type_object.line
        for added in cpp_types.tables_added(type_object, text):
            if added.rpartition("::")[2] not in defined:
                handed += (
                    ModuleArgument(type_name, added.removeprefix("::"), "::".join(scope), 0, slot_line)
                    for type_name in names
                )
    return entries, handed


def _type_methods(
    type_object: cpp_types.TypeObject, type_name: str, text: str, lang: Language, path: str, scope: list[str]
) -> list[Symbol]:
    """A type object as the class `type_name`, and the special methods its slots give it."""
    size = type_object.slots.get("tp_basicsize")
    instances = re.fullmatch(r"sizeof\s*\(\s*([\w:]+)\s*\)", size[0]) if size is not None else None
    cpp = instances.group(1) if instances is not None else type_object.variable  # what an instance is in C++
    entries = [
        Symbol(
            type_name,
            type_name.rpartition(".")[2],
            SymbolKind.BOUND_CLASS,
            lang,
            path,
            type_object.line,
            type_object.line,
            f"PyTypeObject {type_object.variable}: instances are {cpp}",
            cpp,
        )
    ]
    for python_name, function, line in cpp_types.slot_methods(type_object, text):
        target = (
            function.removeprefix("::") if function.startswith("::") or not scope else "::".join([*scope, function])
        )
        statement = f"{type_object.variable}: {python_name} is {function}"
        entries.append(
            Symbol(
                f"{type_name}.{python_name}",
                python_name,
                SymbolKind.METHOD_TABLE,
                lang,
                path,
                line,
                line,
                statement,
                target,
            )
        )
    return entries


def _table_owners(
    table: str, text: str, path: str, types: list[cpp_types.TypeObject], placed: dict[str, list[str]], qualified: str
) -> tuple[list[str], bool]:
    """The modules or types a method table belongs to, and whether that is a guess: the module
    a PyModuleDef names with the table; the type whose slots hold it, by each name a module
    gives it, else its tp_name; PyTorch's own tables are torch._C's (torch/csrc/Module.cpp adds
    them at run time); a table another file may add to a type (not static, and declared
    `extern` there) is that type's, by the placeholder the other file resolves; else a module
    named after the file."""
    mentions = re.compile(rf"\b{re.escape(table)}\b")
    for found in re.finditer(r"\bPyModuleDef\s+\w+\s*=\s*\{(.*?)\};", text, re.S):
        # `static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "torch._C._nn", ..., methods}`
        body = found.group(1)
        named = re.search(r'"([A-Za-z_][\w.]*)"', body)
        if named is not None and mentions.search(body):
            return [named.group(1)], False
    owner = cpp_types.table_owner(table, types, text)
    if owner is not None:
        names = placed.get(owner.variable) or ([owner.tp_name] if owner.tp_name else [])
        if names:
            return names, False
        return [f"{path.rpartition('/')[2].partition('.')[0]}.{owner.variable}"], True
    if path.startswith("torch/csrc/") or "/torch/csrc/" in path:
        return ["torch._C"], False
    if not re.search(rf"\bstatic\b[^;{{]*\b{re.escape(table)}\s*\[", text):
        return [f"<arg 0 of {qualified}>"], False
    return [path.rpartition("/")[2].partition(".")[0]], True


def _pybind(
    call: tsx.Node,
    member: str,
    bound: Value,
    name: str | None,
    arguments: list[tsx.Node],
    lang: Language,
    path: str,
    line: int,
    statement: str,
    scope_of: ScopeOf,
) -> Iterator[Symbol]:
    """`m.def("f", &fn)` on a module; `.def("f", &T::f)`, `.def(py::init<...>())` on a class."""
    if isinstance(bound, PyName):
        return
    if isinstance(bound, PyModule):
        if member == "def" and name:
            yield _binding(
                f"{bound.name}.{name}", name, _target(arguments[1:], scope_of(call)) or "", lang, path, line, statement
            )
        return
    init = tsx.text(arguments[0]).replace(" ", "")
    cpp_class = strip_template_args(bound.cpp.removeprefix("::"))
    operator = _self_operator(init) if member == "def" and "py::self" in init else None
    if operator is not None:  # `.def(py::self & py::self)`: Python's __and__ runs C++'s operator&
        python_name, cpp_operator = operator
        symbol = not any(character.isalpha() for character in cpp_operator)  # `&`, `+=`: C++'s operator&, operator+=
        target = "::".join([*scope_of(call), f"operator{cpp_operator}"]) if symbol else cpp_operator
        yield _binding(f"{bound.name}.{python_name}", python_name, target, lang, path, line, statement)
        return
    if member == "def" and init.startswith(("py::init", "pybind11::init")):
        if "[" in init:  # py::init([](...) { ... }): the lambda makes the object
            lambdas = list(_lambdas_in(arguments[0]))
            target = "::".join([*scope_of(call), _lambda_name(lambdas[0])]) if lambdas else ""
        else:
            scope = [] if bound.cpp.startswith("::") else scope_of(call)
            target = "::".join([*scope, cpp_class, cpp_class.rpartition("::")[2]])
        yield _binding(f"{bound.name}.__init__", "__init__", target, lang, path, line, statement)
    elif name:
        yield _binding(
            f"{bound.name}.{name}", name, _target(arguments[1:], scope_of(call)) or "", lang, path, line, statement
        )


_SELF_FUNCTIONS = {
    "hash": ("__hash__", "std::hash"),
    "abs": ("__abs__", "abs"),
    "float_": ("__float__", "operator float"),
    "int_": ("__int__", "operator int"),
    "str": ("__str__", "operator<<"),
}
_SELF = r"(?:py|pybind11)::self"
# the operators C++ writes of Python's (no `//`, `@`, `**`), the longest first
_CPP_OPERATORS = "|".join(
    re.escape(o) for o in sorted({*BINARY, *COMPARISON} - {"//", "@", "**"}, key=len, reverse=True)
)
_OPERAND = r"(?:(?:py|pybind11)::self|[\w:<>]+\(\)|[\w:.]+)"


def _self_operator(written: str) -> tuple[str, str] | None:
    """pybind11's operator bindings, spaces removed: `py::self&py::self` -> (__and__, &),
    `py::self+=py::self` -> (__iadd__, +=), `float()*py::self` -> (__rmul__, *),
    `-py::self` -> (__neg__, -), `hash(py::self)` -> (__hash__, std::hash)."""
    called = re.fullmatch(rf"(\w+)\({_SELF}\)", written)
    if called is not None:
        return _SELF_FUNCTIONS.get(called.group(1))
    unary = re.fullmatch(rf"([-+~]){_SELF}", written)
    if unary is not None:
        return UNARY[unary.group(1)], unary.group(1)
    binary = re.fullmatch(rf"({_OPERAND})({_CPP_OPERATORS})(=?)({_OPERAND})", written)
    if binary is None:
        return None
    left, operator, assigns, right = binary.groups()
    if assigns and operator in ("<", ">", "=", "!"):  # `<=`, `>=`, `==`, `!=` were matched whole
        return None
    method, reflected, in_place = BINARY[operator] if operator in BINARY else (*COMPARISON[operator], "")
    if assigns:
        return in_place, operator + "="
    if re.fullmatch(_SELF, left):
        return method, operator
    return (reflected, operator) if re.fullmatch(_SELF, right) else None


def _binding(qname: str, name: str, target: str, lang: Language, path: str, line: int, statement: str) -> Symbol:
    return Symbol(qname, name, SymbolKind.PYBIND, lang, path, line, line, statement, target or None)


def _operator(qname: str, schema: str, lang: Language, path: str, line: int) -> Symbol:
    return Symbol(
        qname, qname.partition("::")[2].partition(".")[0], SymbolKind.OPERATOR, lang, path, line, line, schema or qname
    )


def _operator_name(schema: str | None, namespace: str | None) -> str | None:
    """`pyg::fps(Tensor src, ...) -> Tensor` -> pyg::fps; `nms(...)` in TORCH_LIBRARY(tv, m) ->
    tv::nms; `add.Tensor(...)` -> ns::add.Tensor."""
    if not schema:
        return None
    name = schema.split("(", 1)[0].strip()
    if not re.fullmatch(r"(?:\w+::)?\w+(?:\.\w+)?", name):
        return None
    if "::" not in name:
        if not namespace:
            return None
        name = f"{namespace}::{name}"
    return name


def _options_chain(node: tsx.Node, scope: list[str]) -> tuple[str | None, list[tuple[str, str, int]]]:
    """The operator and kernels of an older registration's options:
    `RegisterOperators::options().schema("ns::op(...)").kernel<decltype(f), &f>(DispatchKey::CPU)`,
    `.kernel<Functor>(key)` (its operator()), `.kernel(key, fn)`, `.catchAllKernel<decltype(f), &f>()`,
    `.catchAllKernel(fn)`. Read from the outermost call inward."""
    schema: str | None = None
    kernels: list[tuple[str, str, int]] = []
    while node.type == "call_expression":
        function, arguments = node.child_by_field_name("function"), _arguments(node)
        if function is None or function.type != "field_expression":
            break
        field, inner = function.child_by_field_name("field"), function.child_by_field_name("argument")
        if field is None or inner is None:
            break
        template = field.child_by_field_name("arguments") if field.type == "template_method" else None
        member = tsx.text(field.child_by_field_name("name") if template is not None else field)
        if member == "schema" and arguments:
            schema = _string(arguments[0])
        elif member in ("kernel", "catchAllKernel"):
            key = (
                CATCH_ALL_KEY
                if member == "catchAllKernel"
                else (collapse(tsx.text(arguments[0])).rpartition("::")[2] if arguments else "")
            )
            given = [
                a
                for a in (template.named_children if template is not None else arguments[member == "kernel" :])
                if a.type != "comment"
            ]
            kernel = _options_kernel(given, scope)
            if key and kernel is not None:
                kernels.append((key, kernel, tsx.line(field)))
        node = inner
    kernels.reverse()  # in the order written
    return _operator_name(schema, None), kernels


def _options_kernel(given: list[tsx.Node], scope: list[str]) -> str | None:
    """`<decltype(f), &f>` or `(fn)`: the function; `<Functor>`: its call operator."""
    if not given:
        return None
    if len(given) == 1 and given[0].type == "type_descriptor":
        functor = _target(given, scope)
        return f"{functor}::operator()" if functor else None
    return _kernel(given[-1], scope)


def _wrapped_lambda(argument: tsx.Node) -> tsx.Node | None:
    """The lambda an argument is, or the one lambda a wrapper call around it is handed
    (`torch::wrap_pybind_function([](...) {...})`, nested wrappers too): what runs."""
    while argument.type == "call_expression":
        inner = _arguments(argument)
        if len(inner) != 1:
            return None
        argument = inner[0]
    return argument if argument.type == "lambda_expression" else None


def _lambdas_in(node: tsx.Node) -> list[tsx.Node]:
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "lambda_expression":
            found.append(current)
            continue
        stack.extend(current.named_children)
    return found


def _kernel(argument: tsx.Node, scope: list[str]) -> str | None:
    """The kernel a registration names: a lambda by its own definition (`ns::<lambda at line
    N>`); `<kernel at line N>` for an expression naming no one function (shown unresolved);
    None for a fallthrough (`CppFunction::makeFallthrough()`: the key is skipped, no kernel runs)."""
    written = _target([argument], scope)
    if written is None:
        return None
    if written:
        return written
    return f"<kernel at line {tsx.line(argument)}>"


def _target(arguments: list[tsx.Node], scope: list[str]) -> str | None:
    """The C++ function a registration names, prefixed by the namespaces around it: `&fn`,
    `fn`, `TORCH_FN(fn)`, `TORCH_FN(Op<2>::run)`, `static_cast<...>(native::fn)`,
    `py::overload_cast<int>(&fn)`, `CppFunction::makeFromBoxedFunction<&fn>()`, `&T::meth`;
    empty for a lambda or anything else; None for a fallthrough."""
    if not arguments:
        return ""
    argument = arguments[0]
    wrapped = _wrapped_lambda(argument)
    if wrapped is not None:
        return "::".join([*scope, _lambda_name(wrapped)])
    text, previous = collapse(tsx.text(argument)), None
    if "makeFallthrough" in text:
        return None
    while previous != text:  # peel wrappers: `&fn`, `(&fn)`, TORCH_FN(...), casts, nested
        previous = text
        text = text.strip().lstrip("&").strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        for pattern in _UNWRAP:
            match = pattern.match(text)
            if match is not None:
                text = match.group(1)
    text = strip_template_args(text)
    if not re.fullmatch(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:::operator(?:\W{1,3}|\(\)))?", text):
        return ""  # `&c10::DispatchKeySet::operator|` is a function too
    if text.startswith("::") or not scope:
        return text.removeprefix("::")
    # `native::conv2d_symint` written in namespace at::functorch: looked up from there
    return "::".join([*scope, text])


def _key(argument: tsx.Node, default: str) -> str:
    """The dispatch key a kernel is registered for: `torch::dispatch(c10::DispatchKey::CPU, fn)`
    names its own, else the block's (TORCH_LIBRARY_IMPL(ns, CUDA, m)), else every key."""
    match = re.match(r"^(?:torch::)?dispatch\s*\(\s*([\w:]+)\s*,", collapse(tsx.text(argument)))
    key = match.group(1) if match is not None else default
    return key.rpartition("::")[2]


def _string(node: tsx.Node) -> str | None:
    """A string literal's text, looking through TORCH_SELECTIVE_SCHEMA/NAME and casts
    (`(char*)"elapsed_time"`); None for others."""
    if node.type == "call_expression":
        inner = _arguments(node)
        if len(inner) == 1 and tsx.text(node.child_by_field_name("function") or node).startswith("TORCH_SELECTIVE"):
            return _string(inner[0])
        return None
    return string_literal(node)


def _chain_root(receiver: tsx.Node) -> tsx.Node:
    """`py::class_<T>(m, "P").def(...).def(...)`: the call the chain starts from."""
    node = receiver
    while node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or function.type != "field_expression":
            break
        inner = function.child_by_field_name("argument")
        if inner is None:
            break
        node = inner
    return node


def _block_around(node: tsx.Node) -> tuple[tsx.Node | None, _Block | None]:
    """The registration macro whose body holds `node` (its nearest function definition)."""
    parent = node.parent
    while parent is not None:
        if parent.type == "function_definition":
            block = _block_of(parent)
            return (parent, block) if block is not None else (None, None)
        parent = parent.parent
    return None, None


def _block_of(function: tsx.Node) -> _Block | None:
    """A registration macro's body, parsed as the function definition it looks like:
    `TORCH_LIBRARY_IMPL(pyg, CUDA, m) { ... }`; None for a real function."""
    declarator = function.child_by_field_name("declarator")
    name = (
        declarator.child_by_field_name("declarator")
        if declarator is not None and declarator.type == "function_declarator"
        else None
    )
    macro = tsx.text(name) if name is not None else ""
    if declarator is None or (macro not in _OPERATOR_BLOCKS and macro not in _PYBIND_BLOCKS):
        return None
    parameters = declarator.child_by_field_name("parameters")
    arguments = (
        tuple(collapse(tsx.text(p)) for p in parameters.named_children if p.type != "comment")
        if parameters is not None
        else ()
    )
    return _Block(macro, arguments)
