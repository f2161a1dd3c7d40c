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
(query/nodes.py looks it up outward from there, as C++ does). A kernel
for every key is filed under CompositeImplicitAutograd, which runs on every backend.

pybind11: `PYBIND11_MODULE(name, m)` with `m.def("f", &fn)`, `py::class_<T>(m, "Py")` and its
`.def`, `.def_static`, `.def(py::init<...>())`, `.def_property[_readonly]`, and submodules made
with `auto sub = m.def_submodule("sub")`. Each is a PYBIND symbol named by the Python dotted
name under the module as written (`TORCH_EXTENSION_NAME.f`: which module the extension is,
setup.py says; query/extensions.py reads it), its target the C++ function as written.

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
from collections.abc import Iterator
from dataclasses import dataclass

from explorer import treesitter as tsx
from explorer.model import DispatchEntry, Symbol, SymbolKind
from explorer.parsers.common import collapse, strip_template_args

_OPERATOR_BLOCKS = ("TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL")
_PYBIND_BLOCKS = ("PYBIND11_MODULE",)
CATCH_ALL_KEY = "CompositeImplicitAutograd"  # a kernel given with the definition runs for every key
_UNWRAP = (  # what a kernel is written inside: each gives the expression within
    re.compile(r"^(?:TORCH_SELECTIVE_SCHEMA|TORCH_SELECTIVE_NAME|TORCH_FN|TORCH_FN_TYPE)\s*\((.*)\)$", re.S),
    re.compile(r"^(?:py|pybind11)::overload_cast\s*<.*?>\s*\((.*)\)$", re.S),
    re.compile(r"^(?:static_cast|reinterpret_cast)\s*<.*>\s*\((.*)\)$", re.S),
    re.compile(r"^(?:torch::|c10::)?CppFunction::makeFromBoxedFunction\s*<\s*(.*?)\s*>\s*\(\s*\)$", re.S),
    re.compile(r"^(?:torch::)?dispatch\s*\([^,]*,\s*(.*)\)$", re.S),
    re.compile(r"^castPyCFunction\w*\s*\((.*)\)$", re.S),  # PyTorch's casts of a method table's function
    re.compile(r"^\((?:[^()]|\([^()]*\))*\)\s*(.+)$", re.S),  # a C cast: `(PyCFunction)(void (*)(void))fn`
)
_PYBIND_MEMBERS = ("def", "def_static", "def_property", "def_property_readonly", "def_readwrite", "def_readonly")


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


def registrations(
    calls: list[tsx.Node], lang, path: str, scope_of,
) -> tuple[list[Symbol], list[DispatchEntry], list[LambdaKernel]]:
    """The operators, kernels and Python bindings the registration calls (`@registration.call`
    captures: calls of a member named def, impl, op, ...) make, and the lambdas among their
    kernels. `scope_of(node)` gives the namespaces around a node, outermost first."""
    symbols: list[Symbol] = []
    dispatch: list[DispatchEntry] = []
    registering: list[tsx.Node] = []  # the calls that do register (a lambda in another `.def` is no kernel)
    chained_lambdas: list[tsx.Node] = []  # lambdas an older registration's options chain registers
    submodules: dict[int, dict[str, str]] = {}  # per pybind block: variable -> dotted submodule
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
                    dispatch.extend(DispatchEntry(name, key, kernel, kernel_line) for key, kernel, kernel_line in kernels)
                chained_lambdas.extend(_lambdas_in(arguments[0]))
                continue
            name = _operator_name(_string(arguments[0]), None)
            if name is not None:
                schema = _string(arguments[0]) or ""
                symbols.append(_operator(name, schema if "(" in schema else statement, lang, path, line))
                if len(arguments) > 1 and "options()" in tsx.text(arguments[1]):  # .op("ns::op(...)", options()...)
                    _, kernels = _options_chain(arguments[1], scope_of(call))
                    dispatch.extend(DispatchEntry(name, key, kernel, kernel_line) for key, kernel, kernel_line in kernels)
                    chained_lambdas.extend(_lambdas_in(arguments[1]))
                    continue
                kernel = _kernel(arguments[1], scope_of(call)) if len(arguments) > 1 else None
                if kernel is not None:
                    dispatch.append(DispatchEntry(name, CATCH_ALL_KEY, kernel, line))
            continue
        block_node, block = _block_around(call)
        if block is None or block_node is None:
            continue
        if block.macro in _OPERATOR_BLOCKS and tsx.text(receiver) == block.module_variable:
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
                key = block.arguments[1] if block.macro == "TORCH_LIBRARY_IMPL" and len(block.arguments) > 2 else CATCH_ALL_KEY
                kernel = _kernel(arguments[1], scope_of(call))
                if kernel is not None:
                    dispatch.append(DispatchEntry(name, _key(arguments[1], key), kernel, line))
        elif block.macro in _PYBIND_BLOCKS and block.arguments:
            registering.append(call)
            modules = submodules.setdefault(block_node.id, {block.module_variable: block.arguments[0]})
            symbols.extend(_pybind(call, member, receiver, root, arguments, modules, lang, path, line, statement, scope_of))
    lambdas = [
        _lambda_kernel(argument, lang, path, scope_of(argument))
        for argument in [*(a for call in registering for a in _arguments(call)[1:]), *chained_lambdas]
        if argument.type == "lambda_expression"
    ]
    return symbols, dispatch, lambdas


def _lambda_kernel(node: tsx.Node, lang, path: str, scope: list[str]) -> LambdaKernel:
    name = _lambda_name(node)
    first_line = collapse(tsx.text(node).split("{", 1)[0])[:300]
    symbol = Symbol("::".join([*scope, name]), name, SymbolKind.FUNCTION, lang, path, tsx.line(node), tsx.end_line(node), first_line)
    return LambdaKernel(symbol, node.start_byte, node.end_byte)


def _lambda_name(node: tsx.Node) -> str:
    return f"<lambda at line {tsx.line(node)}>"


def method_tables(tables: list[tsx.Node], source: bytes, lang, path: str, scope_of) -> list[Symbol]:
    """The entries of the file's PyMethodDef tables (`@method_table` captures)."""
    text = source.decode("utf-8", "replace")
    entries = []
    for table in tables:
        declarator = table.child_by_field_name("declarator")
        array = declarator.child_by_field_name("declarator") if declarator is not None else None
        name = tsx.text(array.child_by_field_name("declarator") or array) if array is not None else ""
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if not name or value is None:
            continue
        owner, guessed = _table_owner(name, text, path)
        note = "  [module not named in the tree: named after the file]" if guessed else ""
        for entry in value.named_children:
            fields = [child for child in entry.named_children if child.type != "comment"] if entry.type == "initializer_list" else []
            python_name = _string(fields[0]) if fields else None
            if python_name is None or len(fields) < 2:
                continue
            target = _target([fields[1]], scope_of(entry)) or ""
            statement = collapse(tsx.text(entry))[:300] + note
            line = tsx.line(entry)
            entries.append(Symbol(f"{owner}.{python_name}", python_name, SymbolKind.METHOD_TABLE, lang, path, line, line, statement, target or None))
    return entries


def _table_owner(table: str, text: str, path: str) -> tuple[str, bool]:
    """The module or type a method table belongs to, and whether that is a guess."""
    mentions = re.compile(rf"\b{re.escape(table)}\b")
    for kind in ("PyModuleDef", "PyTypeObject"):
        # `static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "torch._C._nn", ..., methods}`,
        # `PyTypeObject THPStreamType = {..."torch.Stream", ..., THPStream_methods, ...}`
        for found in re.finditer(rf"\b{kind}\s+\w+\s*=\s*\{{(.*?)\}};", text, re.S):
            body = found.group(1)
            named = re.search(r'"([A-Za-z_][\w.]*)"', body)
            if named is not None and mentions.search(body):
                return named.group(1), False
    # set at run time: `THPVariableType.tp_methods = methods.data()`, the vector filled with
    # `THPUtils_addPyMethodDefs(methods, extra_methods)`, or `X.tp_methods = table`
    holders = [table, *re.findall(rf"THPUtils_addPyMethodDefs\s*\(\s*(\w+)\s*,\s*{re.escape(table)}\s*\)", text)]
    for holder in holders:
        assigned = re.search(rf"(\w+)\.tp_methods\s*=\s*{re.escape(holder)}\b", text)
        if assigned is not None:
            variable = re.escape(assigned.group(1))
            initializer = re.search(rf"PyTypeObject\s+{variable}\s*=\s*\{{(.*?)\}};", text, re.S)
            in_initializer = re.search(r'"([A-Za-z_][\w.]*)"', initializer.group(1)) if initializer is not None else None
            type_name = in_initializer or re.search(rf'\b{variable}\.tp_name\s*=\s*"([A-Za-z_][\w.]*)"', text)
            if type_name is not None:
                return type_name.group(1), False
            return f"{path.rpartition('/')[2].partition('.')[0]}.{assigned.group(1)}", True
    if path.startswith("torch/csrc/") or "/torch/csrc/" in path:
        return "torch._C", False
    return path.rpartition("/")[2].partition(".")[0], True


def _pybind(call, member, receiver, root, arguments, modules, lang, path, line, statement, scope_of) -> Iterator[Symbol]:
    name = _string(arguments[0])
    if member == "def_submodule":
        # `auto sub = m.def_submodule("sub")`: later `sub.def(...)` binds into module.sub
        declarator = call.parent
        owner = modules.get(tsx.text(receiver))
        if name and owner and declarator is not None and declarator.type == "init_declarator":
            variable = declarator.child_by_field_name("declarator")
            if variable is not None:
                modules[tsx.text(variable)] = f"{owner}.{name}"
        return
    if member not in _PYBIND_MEMBERS:
        return
    module = modules.get(tsx.text(receiver))
    if module is not None and member == "def" and name:
        # m.def("f", &fn)
        yield _binding(f"{module}.{name}", name, _target(arguments[1:], scope_of(call)) or "", lang, path, line, statement)
        return
    cls = _pybind_class(root, modules)
    if cls is None:
        return
    dotted, cpp_class = cls
    init = tsx.text(arguments[0]).replace(" ", "")
    if member == "def" and init.startswith(("py::init", "pybind11::init")):
        constructor = "::".join([*scope_of(call), cpp_class, cpp_class.rpartition("::")[2]])
        yield _binding(f"{dotted}.__init__", "__init__", constructor, lang, path, line, statement)
    elif name:
        yield _binding(f"{dotted}.{name}", name, _target(arguments[1:], scope_of(call)) or "", lang, path, line, statement)


def _pybind_class(root: tsx.Node, modules: dict[str, str]) -> tuple[str, str] | None:
    """`py::class_<T, Base>(m, "Py")` at the root of a `.def` chain: its dotted Python name and T."""
    if root.type != "call_expression":
        return None
    function = root.child_by_field_name("function")
    written = tsx.text(function) if function is not None else ""
    match = re.match(r"^(?:py|pybind11)::class_\s*<\s*([\w:]+)", written)
    arguments = _arguments(root)
    if match is None or len(arguments) < 2:
        return None
    module, name = modules.get(tsx.text(arguments[0])), _string(arguments[1])
    if module is None or not name:
        return None
    return f"{module}.{name}", match.group(1)


def _binding(qname: str, name: str, target: str, lang, path: str, line: int, statement: str) -> Symbol:
    return Symbol(qname, name, SymbolKind.PYBIND, lang, path, line, line, statement, target or None)


def _operator(qname: str, schema: str, lang, path: str, line: int) -> Symbol:
    return Symbol(qname, qname.partition("::")[2].partition(".")[0], SymbolKind.OPERATOR, lang, path, line, line, schema or qname)


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
            key = CATCH_ALL_KEY if member == "catchAllKernel" else (collapse(tsx.text(arguments[0])).rpartition("::")[2] if arguments else "")
            given = [a for a in (template.named_children if template is not None else arguments[member == "kernel":]) if a.type != "comment"]
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
    if argument.type == "lambda_expression":
        return "::".join([*scope, _lambda_name(argument)])
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
    if not re.fullmatch(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", text):
        return ""
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
    """A string literal's text, looking through TORCH_SELECTIVE_SCHEMA/NAME; None for others."""
    if node.type == "call_expression":
        inner = _arguments(node)
        if len(inner) == 1 and tsx.text(node.child_by_field_name("function") or node).startswith("TORCH_SELECTIVE"):
            return _string(inner[0])
        return None
    if node.type == "concatenated_string":
        parts = [_string(child) for child in node.named_children]
        return "".join(part for part in parts if part) if all(part is not None for part in parts) else None
    if node.type != "string_literal":
        return None
    return "".join(tsx.text(child) for child in node.named_children if child.type == "string_content")


def _arguments(call: tsx.Node) -> list[tsx.Node]:
    arguments = call.child_by_field_name("arguments")
    return [child for child in arguments.named_children if child.type != "comment"] if arguments is not None else []


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
    """The registration macro whose body holds `node`, parsed as the function definition it
    looks like: `TORCH_LIBRARY_IMPL(pyg, CUDA, m) { ... }`."""
    parent = node.parent
    while parent is not None:
        if parent.type == "function_definition":
            declarator = parent.child_by_field_name("declarator")
            name = declarator.child_by_field_name("declarator") if declarator is not None and declarator.type == "function_declarator" else None
            macro = tsx.text(name) if name is not None else ""
            if declarator is not None and (macro in _OPERATOR_BLOCKS or macro in _PYBIND_BLOCKS):
                parameters = declarator.child_by_field_name("parameters")
                arguments = tuple(collapse(tsx.text(p)) for p in parameters.named_children if p.type != "comment") if parameters is not None else ()
                return parent, _Block(macro, arguments)
            return None, None
        parent = parent.parent
    return None, None
