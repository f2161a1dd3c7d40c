"""Which Python module or bound class a C++ value is, inside one function.

pybind11 registers names on a module value (`m.def("f", &f)`, `py::class_<T>(m, "T")`). In
PyTorch that value is made once (`PyModule_Create(&torchmodule)` in torch/csrc/Module.cpp,
named "torch._C" by its PyModuleDef) and handed to dozens of `init*Bindings(PyObject* module)`
functions, which cast it (`py::handle(module).cast<py::module>()`), split it
(`m.def_submodule("_jit")`) and hand it on. Extensions do the same from `PYBIND11_MODULE`.
So a module is followed like any value, with one rule:

- inside a function, a variable's value comes from its declaration or assignment: an import
  (`py::module::import("torch._C")`, `PyImport_ImportModule(...)`), `PyModule_Create` of a
  PyModuleDef of the file, a submodule or attribute of another module, a bound class
  (`py::class_<T, ...>(scope, "Name")` and PyTorch's `*class_<T>` aliases, `py::enum_`,
  `py::exception`), or any wrapper around another value (casts, `py::handle(...)`,
  `THPObjectPtr(...)`, `.ptr()`, `.release()`, `.cast<py::module>()`);
- a parameter that may hold a module is a placeholder, `<arg 0 of torch::jit::initJITBindings>`:
  the index replaces it with what the callers pass (index/store.py), since those are in other
  files; every call that passes a module value is recorded as a ModuleArgument for that.

Evaluation is flow-insensitive within a function (the last assignment of a name that gives a
module wins), which is how these init functions are written: straight-line code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer import treesitter as tsx
from explorer.model import ModuleArgument
from explorer.parsers.common import collapse, split_top_level, strip_template_args


@dataclass(frozen=True, slots=True)
class PyModule:
    name: str  # dotted ("torch._C._jit"), or a placeholder followed by dotted parts


@dataclass(frozen=True, slots=True)
class PyClass:
    name: str  # the dotted Python name ("torch._C.PyTorchFileWriter")
    cpp: str  # the C++ type bound, as written ("PyTorchStreamWriter", "::c10d::ProcessGroup")
    line: int  # where the class is made
    # The C++ bases among the template arguments after the type (`py::class_<Module, Object>`),
    # as written; holders (`std::shared_ptr<T>`, `ListTypePtr`) left out
    bases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PyName:
    """A string parameter a helper names a binding with (`py_context_manager<T>(m, "_InferenceMode")`
    calls `py::class_<...>(m, name)`): a placeholder until the index knows the callers."""

    name: str


Value = PyModule | PyClass | PyName


def placeholder(function: str, index: int) -> str:
    """What a function's parameter holds, until the index knows its callers."""
    return f"<arg {index} of {function}>"


PLACEHOLDER = re.compile(r"^<arg (\d+) of ([^>]+)>")

# pybind11 chains return the object they were called on
_CHAIN_MEMBERS = frozenset(
    (
        "def",
        "def_static",
        "def_property",
        "def_property_readonly",
        "def_property_static",
        "def_property_readonly_static",
        "def_readwrite",
        "def_readonly",
        "def_readwrite_static",
        "def_readonly_static",
        "def_buffer",
        "value",
        "export_values",
        "doc",
    )
)
_PASS_THROUGH_MEMBERS = frozenset(("cast", "ptr", "get", "release", "inc_ref", "borrow", "steal"))
_WRAPPERS = re.compile(
    r"^(?:(?:py|pybind11)::(?:handle|module_?|object|reinterpret_borrow|reinterpret_steal|cast)|THPObjectPtr|"
    r"(?:py|pybind11)::(?:handle|object)::(?:ptr|cast))$"
)
_IMPORTS = re.compile(r"^(?:(?:py|pybind11)::module_?::import|PyImport_ImportModule|PyImport_ImportModuleNoBlock)$")
_CLASS_FACTORIES = re.compile(r"(?:^|::)(\w*class_|enum_|exception|native_enum)$")
# Calls into pybind11, the standard library or CPython: no init function of the tree
_LIBRARY_CALLS = re.compile(r"^(?:::)?(?:(?:py|pybind11|std|c10|at)::|Py[A-Z_]|THPObjectPtr$|TORCH_CHECK|HANDLE_TH)")
# A parameter of one of these types may be a module; a PyObject* (or handle) only when its
# name says so: every CPython method takes `PyObject* self, PyObject* args`.
_MODULE_TYPES = re.compile(r"\bmodule_?\b")
_HANDLE_TYPES = re.compile(r"\b(?:PyObject|handle|object)\b")
_STRING_PARAMETER = re.compile(r"\bchar\s*\*|\bstd::string\b|\bstring_view\b")
_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
_MODULE_NAMES = re.compile(r"(?i)^(?:m|mod|_?module|\w*_module|module_\w*|\w*_m|py_?m\w*|root\w*)$")


class ModuleValues:
    """The module and class values of one function's variables."""

    def __init__(
        self, function: tsx.Node, function_name: str | None, source_text: str, given: dict[str, Value] | None = None
    ) -> None:
        """`function_name` None: a PYBIND11_MODULE block, whose module is `given`."""
        self.text = source_text
        self.values: dict[str, Value] = dict(given or {})
        self.classes: dict[int, PyClass] = {}  # class-making calls seen, by node id
        # `using ContextManagerT = RAIIContextManager<GuardT, GuardArgs...>;` in the function:
        # `py::class_<ContextManagerT>` binds what the alias names
        self.type_aliases: dict[str, str] = {}
        if function_name is not None:
            self._parameters(function, function_name)
        body = function.child_by_field_name("body")
        if body is not None:
            self._assignments(body)

    def _parameters(self, function: tsx.Node, function_name: str) -> None:
        declarator = function.child_by_field_name("declarator")
        while declarator is not None and declarator.type != "function_declarator":
            declarator = declarator.child_by_field_name("declarator")
        parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
        if parameters is None:
            return
        for index, parameter in enumerate(p for p in parameters.named_children if p.type != "comment"):
            name = _declared_name(parameter.child_by_field_name("declarator"))
            written_type = tsx.text(parameter.child_by_field_name("type"))
            if name and (
                _MODULE_TYPES.search(written_type) or (_HANDLE_TYPES.search(written_type) and _MODULE_NAMES.match(name))
            ):
                self.values[name] = PyModule(placeholder(function_name, index))
            elif name and _STRING_PARAMETER.search(tsx.text(parameter)):
                self.values[name] = PyName(placeholder(function_name, index))

    def _assignments(self, body: tsx.Node) -> None:
        stack = [body]
        found: list[tsx.Node] = []
        while stack:
            node = stack.pop()
            if node.type in ("declaration", "assignment_expression", "expression_statement"):
                found.append(node)
            elif node.type in ("alias_declaration", "type_definition"):
                self._type_alias(node)
            if node.type != "lambda_expression":
                stack.extend(node.named_children)
        for node in sorted(found, key=lambda n: n.start_byte):
            if node.type == "assignment_expression":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                value = self.of(right)
                if left is not None and left.type == "identifier" and value is not None:
                    self.values[tsx.text(left)] = value
            elif node.type == "declaration":
                self._declaration(node)
            elif node.named_children and node.named_children[0].type == "call_expression":
                self.of(node.named_children[0])  # `py::class_<T>(m, "T").def(...)`: records the class

    def _type_alias(self, node: tsx.Node) -> None:
        """`using A = T<...>;` or `typedef T<...> A;`: A names T (template arguments dropped)."""
        aliased = node.child_by_field_name("type")
        if node.type == "alias_declaration":
            name = node.child_by_field_name("name")
        else:
            name = node.child_by_field_name("declarator")
        if aliased is None or name is None or name.type not in ("type_identifier", "identifier"):
            return
        written = collapse(tsx.text(aliased)).replace(" ", "")
        self.type_aliases[tsx.text(name)] = re.sub(r"<.*>$", "", written)

    def _declaration(self, node: tsx.Node) -> None:
        written_type = collapse(tsx.text(node.child_by_field_name("type")))
        for declarator in node.children_by_field_name("declarator"):
            if declarator.type != "init_declarator":
                continue
            name = _declared_name(declarator.child_by_field_name("declarator"))
            value_node = declarator.child_by_field_name("value")
            if not name or value_node is None:
                continue
            if value_node.type == "argument_list":  # `THPObjectPtr m(...)`, `py::class_<T> cls(m, "T")`
                value = self._called(written_type, call_arguments(value_node), declarator)
            else:
                value = self.of(value_node)
            if value is not None:
                self.values[name] = value

    def of(self, node: tsx.Node | None) -> Value | None:
        """The module or class an expression is, if it is one."""
        while node is not None and node.type in ("parenthesized_expression", "cast_expression", "pointer_expression"):
            if node.type == "pointer_expression" and tsx.text(node).startswith("&"):
                return None  # `&fn`
            node = (
                node.child_by_field_name("value")
                or node.child_by_field_name("argument")
                or (node.named_children[-1] if node.named_children else None)
            )
        if node is None:
            return None
        if node.type == "identifier":
            return self.values.get(tsx.text(node))
        if node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        arguments = call_arguments(node)
        if function is None:
            return None
        if function.type == "field_expression":
            field = function.child_by_field_name("field")
            member = tsx.text(
                field.child_by_field_name("name") if field is not None and field.type == "template_method" else field
            )
            base = self.of(function.child_by_field_name("argument"))
            if base is None:
                return None
            if member in ("def_submodule", "attr") and isinstance(base, PyModule):
                name = string_literal(arguments[0]) if arguments else None
                return PyModule(f"{base.name}.{name}") if name else None
            if member in _CHAIN_MEMBERS or member in _PASS_THROUGH_MEMBERS:
                return base
            return None
        return self._called(collapse(tsx.text(function)).replace(" ", ""), arguments, node)

    def _called(self, written: str, arguments: list[tsx.Node], node: tsx.Node) -> Value | None:
        """A call (or a constructor) of `written` with these arguments."""
        plain = re.sub(r"<.*>$", "", written)
        if _IMPORTS.match(plain):
            name = string_literal(arguments[0]) if arguments else None
            return PyModule(name) if name else None
        if plain in ("PyModule_Create", "PyModule_Create2") and arguments:
            return self._created_module(tsx.text(arguments[0]).lstrip("&").strip())
        factory = _CLASS_FACTORIES.search(plain)
        if factory is not None and len(arguments) >= 2 and "<" in written:
            scope, name = self.of(arguments[0]), self.name_of(arguments[1])
            if not isinstance(scope, (PyModule, PyClass)) or not name:
                return None
            cpp, *others = _template_arguments(written[len(plain) :]) or [""]
            cpp = self.type_aliases.get(cpp, cpp)
            bases = tuple(self.type_aliases.get(other, other) for other in others if not _HOLDER.search(other))
            # `intrusive_ptr_class_<NCCL::Options>(pg, "Options", processGroupOptions)`: a base
            # handed as a class value, known here by the C++ type it binds
            bases += tuple(
                value.cpp
                for value in map(self.of, arguments[2:])
                if isinstance(value, PyClass) and value.cpp not in bases
            )
            made = PyClass(f"{scope.name}.{name}", cpp, tsx.line(node), bases)
            self.classes.setdefault(node.id, made)
            return made
        if _WRAPPERS.match(plain) and arguments:
            return self.of(arguments[0])
        return None

    def _created_module(self, definition: str) -> PyModule | None:
        """`PyModule_Create(&torchmodule)`: the name its PyModuleDef gives."""
        found = re.search(
            rf"\bPyModuleDef\s+{re.escape(definition)}\s*=\s*\{{\s*PyModuleDef_HEAD_INIT\s*,\s*\"([\w.]+)\"", self.text
        )
        return PyModule(found.group(1)) if found else None

    def placement(self, call: tsx.Node) -> tuple[str, str] | None:
        """`PyModule_AddObject(module, "Event", (PyObject*)&THPEventType)`: the type object's
        variable and the dotted name it gets in the module."""
        function = call.child_by_field_name("function")
        if tsx.text(function) not in ("PyModule_AddObject", "PyModule_AddObjectRef"):
            return None
        arguments = call_arguments(call)
        module = self.of(arguments[0]) if len(arguments) == 3 else None
        name = string_literal(arguments[1]) if len(arguments) == 3 else None
        added = collapse(tsx.text(arguments[2])) if name else ""
        variable = re.fullmatch(r"(?:\(\s*PyObject\s*\*\s*\)|reinterpret_cast<PyObject\*>)?\s*\(?&(\w+)\)?", added)
        if variable is None and added.isidentifier():
            # `THPVariableFunctionsModule = PyType_GenericNew(&THPVariableFunctions, ...)`: an
            # instance, whose attributes are its type's methods
            variable = re.search(rf"\b{re.escape(added)}\s*=\s*PyType_GenericNew\s*\(\s*&\s*(\w+)", self.text)
        if not isinstance(module, PyModule) or variable is None:
            return None
        return variable.group(1), f"{module.name}.{name}"

    def name_of(self, node: tsx.Node) -> str | None:
        """A name a binding is given: a string literal, or a string parameter's placeholder."""
        literal = string_literal(node)
        if literal is not None:
            return literal
        value = self.values.get(tsx.text(node)) if node.type == "identifier" else None
        return value.name if isinstance(value, PyName) else None

    def passed(self, call: tsx.Node, caller_scope: list[str]) -> list[ModuleArgument]:
        """The module values a call hands to the function it calls, and with them the names it
        passes (string literals, or the caller's own string parameters), which the callee may
        name its bindings with."""
        function = call.child_by_field_name("function")
        if function is not None and function.type == "template_function":  # py_context_manager<Guard>(m, "Name")
            function = function.child_by_field_name("name")
        if function is None or function.type not in ("identifier", "qualified_identifier"):
            return []
        # `slot_dict_impl<detail::ModulePolicy>::bind(m, "ModuleDict")`: the template's function
        callee = strip_template_args(collapse(tsx.text(function)).replace(" ", ""))
        if _LIBRARY_CALLS.match(callee):
            return []
        modules: list[tuple[int, str]] = []
        names: list[tuple[int, str]] = []
        for index, argument in enumerate(call_arguments(call)):
            value = self.of(argument)
            if isinstance(value, PyModule):
                modules.append((index, value.name))
            else:
                name = self.name_of(argument)
                if name is not None and (_NAME.match(name) or name.startswith("<arg ")):
                    names.append((index, name))
        if not modules:
            return []
        scope = "::".join(caller_scope)
        return [ModuleArgument(value, callee, scope, index, tsx.line(call)) for index, value in sorted(modules + names)]


def string_literal(node: tsx.Node) -> str | None:
    """A string literal's text, through casts (`(char*)"record"`) and adjacent literals."""
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        return string_literal(value) if value is not None else None
    if node.type == "concatenated_string":
        parts = [string_literal(child) for child in node.named_children]
        return "".join(p for p in parts if p) if all(p is not None for p in parts) else None
    if node.type != "string_literal":
        return None
    return "".join(tsx.text(child) for child in node.named_children if child.type == "string_content")


def call_arguments(node: tsx.Node) -> list[tsx.Node]:
    """A call's (or an argument list's) arguments, comments left out."""
    arguments = node if node.type == "argument_list" else node.child_by_field_name("arguments")
    return [child for child in arguments.named_children if child.type != "comment"] if arguments is not None else []


def _declared_name(declarator: tsx.Node | None) -> str:
    """`m`, `*module`, `&m`: the name a declarator declares."""
    while declarator is not None and declarator.type not in ("identifier", "field_identifier"):
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (
                    child
                    for child in declarator.named_children
                    if child.type in ("identifier", "pointer_declarator", "reference_declarator")
                ),
                None,
            )
        declarator = inner
    return tsx.text(declarator) if declarator is not None else ""


def _template_arguments(arguments: str) -> list[str]:
    """`<::c10d::ProcessGroup, c10::intrusive_ptr<...>>` -> [`::c10d::ProcessGroup`, `c10::intrusive_ptr<...>`]."""
    inner = arguments.strip()[1:-1] if arguments.strip().startswith("<") else arguments
    return [item.strip() for _, item in split_top_level(inner, "<(", ">)") if item.strip()]


# A holder type among py::class_'s template arguments: a smart pointer, or a typedef of one
# (`ListTypePtr`), or pybind11's options (`py::dynamic_attr`)
_HOLDER = re.compile(r"(?:_ptr|Ptr)\s*(?:<.*)?$|^(?:py|pybind11)::")
