"""CPython type objects of one file: a Python class whose methods are C++ functions.

`PyTypeObject THPEventType = {PyVarObject_HEAD_INIT(nullptr, 0) "torch.Event", ..., THPEvent_methods,
/* tp_methods */ ...}` lists its slots by position (or by `.tp_x = ...` designators), and a slot
may be set at run time (`THPVariableType.tp_methods = methods.data()`). The class's Python name
is where an init function puts it (`PyModule_AddObject(module, "Event", (PyObject*)&THPEventType)`,
read by parsers/cpp_modules.py), else its tp_name. Its Python methods are:
- the entries of its tp_methods (PyMethodDef) and tp_getset (PyGetSetDef) tables;
- its slots, under the special method names Python calls them by (tp_new is `__new__`,
  tp_repr `__repr__`, sq_item of its tp_as_sequence `__getitem__`, nb_add of tp_as_number
  `__add__`, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.parsers.common import split_top_level

# PyTypeObject's fields in declaration order (CPython's Include/cpython/object.h)
_TYPE_FIELDS = (
    "tp_name",
    "tp_basicsize",
    "tp_itemsize",
    "tp_dealloc",
    "tp_vectorcall_offset",
    "tp_getattr",
    "tp_setattr",
    "tp_as_async",
    "tp_repr",
    "tp_as_number",
    "tp_as_sequence",
    "tp_as_mapping",
    "tp_hash",
    "tp_call",
    "tp_str",
    "tp_getattro",
    "tp_setattro",
    "tp_as_buffer",
    "tp_flags",
    "tp_doc",
    "tp_traverse",
    "tp_clear",
    "tp_richcompare",
    "tp_weaklistoffset",
    "tp_iter",
    "tp_iternext",
    "tp_methods",
    "tp_members",
    "tp_getset",
    "tp_base",
    "tp_dict",
    "tp_descr_get",
    "tp_descr_set",
    "tp_dictoffset",
    "tp_init",
    "tp_alloc",
    "tp_new",
)
_TYPE_SLOTS = {
    "tp_repr": ("__repr__",),
    "tp_hash": ("__hash__",),
    "tp_call": ("__call__",),
    "tp_str": ("__str__",),
    "tp_getattro": ("__getattribute__",),
    "tp_setattro": ("__setattr__",),
    "tp_richcompare": ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"),
    "tp_iter": ("__iter__",),
    "tp_iternext": ("__next__",),
    "tp_descr_get": ("__get__",),
    "tp_descr_set": ("__set__",),
    "tp_init": ("__init__",),
    "tp_new": ("__new__",),
}
# The slot tables a type points at, by their struct's fields in declaration order
_TABLE_FIELDS = {
    "PySequenceMethods": (
        "__len__",
        "__add__",
        "__mul__",
        "__getitem__",
        None,
        "__setitem__",
        None,
        "__contains__",
        "__iadd__",
        "__imul__",
    ),
    "PyMappingMethods": ("__len__", "__getitem__", "__setitem__"),
    "PyNumberMethods": (
        "__add__",
        "__sub__",
        "__mul__",
        "__mod__",
        "__divmod__",
        "__pow__",
        "__neg__",
        "__pos__",
        "__abs__",
        "__bool__",
        "__invert__",
        "__lshift__",
        "__rshift__",
        "__and__",
        "__xor__",
        "__or__",
        "__int__",
        None,
        "__float__",
        "__iadd__",
        "__isub__",
        "__imul__",
        "__imod__",
        "__ipow__",
        "__ilshift__",
        "__irshift__",
        "__iand__",
        "__ixor__",
        "__ior__",
        "__floordiv__",
        "__truediv__",
        "__ifloordiv__",
        "__itruediv__",
        "__index__",
        "__matmul__",
        "__imatmul__",
    ),
}
_TABLE_OF_SLOT = {
    "tp_as_sequence": "PySequenceMethods",
    "tp_as_mapping": "PyMappingMethods",
    "tp_as_number": "PyNumberMethods",
}
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_NO_FUNCTION = frozenset(("nullptr", "NULL", "0", "", "{}"))


@dataclass(frozen=True, slots=True)
class TypeObject:
    variable: str  # THPEventType
    tp_name: str | None  # "torch.Event"
    slots: dict[str, tuple[str, int]]  # tp_x -> (the value as written, its line)
    line: int


def type_objects(text: str) -> list[TypeObject]:
    """The file's PyTypeObject definitions, with the slots set on them anywhere in the file."""
    found = []
    for definition in re.finditer(r"\bPyTypeObject\s+(\w+)\s*=\s*\{", text):
        body_start = definition.end()
        body_end = _closing_brace(text, body_start)
        if body_end is None:
            continue
        slots = _initializers(text, body_start, body_end, _TYPE_FIELDS, head_init=True)
        name = slots.get("tp_name")
        tp_name = re.search(r'"([\w.]+)"', name[0]) if name is not None else None
        found.append(
            TypeObject(
                definition.group(1), tp_name.group(1) if tp_name else None, slots, _line(text, definition.start())
            )
        )
    for assigned in re.finditer(r"\b(\w+)\s*(?:\.|->)\s*(tp_\w+)\s*=\s*([^;=][^;]*);", text):
        for type_object in found:
            if type_object.variable == assigned.group(1):
                written = type_object.slots.get(assigned.group(2))
                if written is None or written[0] in _EMPTY_SLOT:
                    # `THPVariableType.tp_methods = methods.data();` fills what the initializer left nullptr
                    type_object.slots[assigned.group(2)] = (assigned.group(3).strip(), _line(text, assigned.start()))
    return found


def slot_methods(type_object: TypeObject, text: str) -> list[tuple[str, str, int]]:
    """(Python special method name, the C++ function as written, line) for each slot set."""
    methods: list[tuple[str, str, int]] = []
    for slot, (written, line) in type_object.slots.items():
        function = _function(written)
        if slot in _TYPE_SLOTS and function is not None:
            methods.extend((name, function, line) for name in _TYPE_SLOTS[slot])
        elif slot in _TABLE_OF_SLOT and function is not None:
            methods.extend(_table_slots(text, _TABLE_OF_SLOT[slot], function))
    return methods


_EMPTY_SLOT = frozenset(("nullptr", "NULL", "0"))


def table_owner(table: str, types: list[TypeObject], text: str) -> TypeObject | None:
    """The type whose tp_methods or tp_getset is `table`: directly, or through a vector filled
    with it and handed over as `methods.data()` (`THPUtils_addPyMethodDefs(methods, table)`,
    `methods.assign(table, table + n)`, also in a function that fills the vector it is passed:
    gatherTorchFunctions(torch_functions) in python_torch_functions_manual.cpp)."""
    holders = _holders(table, text)
    for type_object in types:
        for slot in ("tp_methods", "tp_getset"):
            written = type_object.slots.get(slot)
            if written is not None and (_function(written[0]) or "").removesuffix(".data()") in holders:
                return type_object
    return None


def tables_added(type_object: TypeObject, text: str) -> list[str]:
    """The method tables, as written, that a type's tp_methods vector is filled from
    (`THPUtils_addPyMethodDefs(methods, torch::autograd::variable_methods)`, then
    `THPVariableType.tp_methods = methods.data()` in python_variable.cpp): the tables another
    file may define."""
    written = type_object.slots.get("tp_methods")
    holder = (_function(written[0]) or "").removesuffix(".data()") if written is not None else ""
    if not holder.isidentifier():
        return []
    name = re.escape(holder)
    return list(
        dict.fromkeys(re.findall(rf"THPUtils_addPyMethodDefs\s*\(\s*{name}\s*,\s*((?:::)?\w+(?:::\w+)*)\s*\)", text))
    )


def _holders(table: str, text: str) -> set[str]:
    """The names that hold a method table's entries in the file: the table, vectors filled from
    a holder, and a vector passed to a function whose vector parameter is a holder."""
    holders = {table}
    for _ in range(4):  # table -> a parameter -> the caller's vector: a few steps at most
        grown = set(holders)
        for holder in holders:
            name = re.escape(holder)
            grown.update(re.findall(rf"THPUtils_addPyMethodDefs\s*\(\s*(\w+)\s*,\s*{name}\s*\)", text))
            grown.update(re.findall(rf"\b(\w+)\s*\.\s*(?:assign|insert)\s*\([^;]*\b{name}\b", text))
            grown.update(re.findall(rf"vector\s*<\s*PyMethodDef\s*>\s+(\w+)\s*[({{]\s*{name}\b", text))
            for function in re.findall(
                rf"\b(\w+)\s*\(\s*(?:std::)?vector\s*<\s*PyMethodDef\s*>\s*&\s*{name}\s*\)\s*\{{", text
            ):
                grown.update(re.findall(rf"(?<![\w:.>]){re.escape(function)}\s*\(\s*(\w+)\s*\)\s*;", text))
        if grown == holders:
            break
        holders = grown
    return holders


def _table_slots(text: str, struct: str, variable: str) -> list[tuple[str, str, int]]:
    definition = re.search(rf"\b{struct}\s+{re.escape(variable)}\s*=\s*\{{", text)
    end = _closing_brace(text, definition.end()) if definition is not None else None
    if definition is None or end is None:
        return []
    fields = tuple(f"#{position}" for position in range(len(_TABLE_FIELDS[struct])))
    given = _initializers(text, definition.end(), end, fields, head_init=False)
    found = []
    for position, name in enumerate(_TABLE_FIELDS[struct]):
        written = given.get(f"#{position}")
        function = _function(written[0]) if written is not None else None
        if name is not None and function is not None:
            found.append((name, function, written[1] if written is not None else 0))
    return found


def _initializers(
    text: str, start: int, end: int, fields: tuple[str, ...], head_init: bool
) -> dict[str, tuple[str, int]]:
    """Each field an aggregate initializer sets, by position or `.field = value`."""
    body = _COMMENT.sub(lambda m: " " * len(m.group(0)), text[start:end])
    values: dict[str, tuple[str, int]] = {}
    position = 0
    for offset, item in split_top_level(body):
        line = _line(text, start + offset + len(item) - len(item.lstrip()))
        item = item.strip()
        if head_init and position == 0 and "HEAD_INIT" in item:
            # `PyVarObject_HEAD_INIT(nullptr, 0) "torch.Event"`: the head, then tp_name
            rest = item[item.index(")", item.index("HEAD_INIT")) + 1 :].strip() if ")" in item else ""
            if rest:
                values["tp_name"] = (rest, line)
                position = 1
            continue
        designated = re.match(r"^\.(\w+)\s*=\s*(.*)$", item, re.S)
        if designated is not None:
            values[designated.group(1)] = (designated.group(2).strip(), line)
            continue
        if position < len(fields) and item:
            values[fields[position]] = (item, line)
        position += 1
    return values


def _function(written: str) -> str | None:
    """The function a slot's value names: `(reprfunc)THPSize_repr`, `&THPEvent_methods`, `fn`."""
    text = re.sub(r"\s+", " ", written).strip()
    while True:
        peeled = re.sub(r"^\((?:[^()]|\([^()]*\))*\)\s*(?=[&\w])", "", text)  # a C cast
        peeled = re.sub(r"^(?:reinterpret_cast|static_cast)<[^>]*>\((.*)\)$", r"\1", peeled).strip().lstrip("&").strip()
        if peeled == text:
            break
        text = peeled
    text = text.removeprefix("(").removesuffix(")") if text.startswith("(") and text.endswith(")") else text
    if text in _NO_FUNCTION or not re.fullmatch(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:\.data\(\))?", text):
        return None
    return text


def _closing_brace(text: str, start: int) -> int | None:
    depth = 1
    for offset in range(start, min(len(text), start + 200_000)):
        character = text[offset]
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                return offset
    return None


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
