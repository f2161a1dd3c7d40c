"""What Python's builtins and the standard library do to values, modelled for the solver:
builtin calls (isinstance, getattr, setattr, iter, next, ...), the methods of str, int and of
containers, iteration, and instances made from classes held as values."""

from __future__ import annotations

import builtins
import functools
from typing import TYPE_CHECKING

from explorer.resolve.flow.calls import Arguments, ScopeKey
from explorer.resolve.flow.values import (
    TENSOR,
    BuiltinMethod,
    Class,
    ClassMethod,
    Constant,
    Container,
    ContainerMethod,
    Generator,
    Instance,
    Property,
    StaticMethod,
    SuperObject,
    TensorValue,
)

if TYPE_CHECKING:
    from explorer.resolve.flow.solver import Solver  # which runs this module's code

BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))


# the methods of the constants' types (a name they lack is no builtin method of theirs)
VALUE_TYPES = {t.__name__: frozenset(n for n in dir(t) if not n.startswith("_")) for t in (str, int, float, bytes)}


# str methods that give a str, and those that give a list of them (the rest give unknowns)
STR_TO_STR = frozenset(
    {
        "capitalize",
        "casefold",
        "center",
        "expandtabs",
        "format",
        "join",
        "ljust",
        "lower",
        "lstrip",
        "removeprefix",
        "removesuffix",
        "replace",
        "rjust",
        "rstrip",
        "strip",
        "swapcase",
        "title",
        "translate",
        "upper",
        "zfill",
    }
)


STR_TO_LIST = frozenset({"split", "rsplit", "splitlines"})


CONVERSIONS = {
    "str": "str",
    "repr": "str",
    "format": "str",
    "int": "int",
    "float": "float",
    "bytes": "bytes",
    "chr": "str",
    "ascii": "str",
}


CONTAINER_METHODS = {
    t.__name__: frozenset(n for n in dir(t) if not n.startswith("_")) for t in (dict, list, tuple, set)
}


def iterate(solver: Solver, caller: ScopeKey, site: tuple[int, int], iterable: int, result: int) -> None:
    """`for x in iterable`: a container's elements, a generator's yields, a tensor's rows,
    or what an instance's `__iter__` (then `__next__`) gives."""
    iterated: set[object] = set()  # an `__iter__` that returns its own instance comes back here

    def element(value: object) -> None:
        if value in iterated:
            return
        iterated.add(value)
        if isinstance(value, Container):
            if value.kind == "dict":
                solver.copy(solver.node(("keys", value)), result)
            else:
                solver.copy(solver.elements(value), result)
        elif isinstance(value, Generator):
            scope = solver.facts.scope(value.function.qname, value.function.line)
            if scope is not None:
                solver.copy(solver.node(("yield", (scope.qname, scope.line, value.context))), result)
        elif isinstance(value, TensorValue):
            solver.add(result, [TENSOR])
        elif isinstance(value, Instance):
            found = solver.class_attribute(value.cls, "__iter__")
            if found is not None:
                iterator = solver.fresh()
                solver.on(
                    found,
                    lambda member: solver.invoke(
                        caller, site, solver.bind(member, value), Arguments(), iterator, "method"
                    ),
                )
                solver.on(iterator, next_of)

    def next_of(value: object) -> None:
        if isinstance(value, Instance):
            found = solver.class_attribute(value.cls, "__next__")
            if found is not None:
                solver.on(
                    found,
                    lambda member: solver.invoke(
                        caller, site, solver.bind(member, value), Arguments(), result, "method"
                    ),
                )
                return
        element(value)

    solver.on(iterable, element)


def builtin_call(
    solver: Solver, caller: ScopeKey, site: tuple[int, int], name: str, arguments: Arguments, result: int
) -> None:
    positional = arguments.positional
    keywords = dict(arguments.keywords)
    if name in ("map", "filter") and len(positional) >= 2:
        element = solver.fresh()
        iterate(solver, caller, site, positional[1], element)
        produced = solver.fresh()
        solver.on(positional[0], lambda value: solver.invoke(caller, site, value, Arguments((element,)), produced))
        container = Container("list", ("builtin", name, result))
        solver.add(result, [container])
        solver.copy(element if name == "filter" else produced, solver.field(container, None))
    elif name in (
        "sorted",
        "min",
        "max",
        "reversed",
        "list",
        "tuple",
        "set",
        "frozenset",
        "iter",
        "next",
        "enumerate",
        "zip",
    ):
        element = solver.fresh()
        for argument in positional[:1] if name != "zip" else positional:
            iterate(solver, caller, site, argument, element)
        if "key" in keywords:
            solver.on(
                keywords["key"], lambda value: solver.invoke(caller, site, value, Arguments((element,)), solver.fresh())
            )
        if name in ("min", "max", "next"):
            solver.copy(element, result)
            return
        kind = {"tuple": "tuple", "set": "set", "frozenset": "set"}.get(name, "list")
        container = Container(kind, ("builtin", name, result))
        solver.add(result, [container])
        if name == "enumerate":
            pair = Container("tuple", ("builtin", "enumerate-pair", result))
            solver.copy(element, solver.field(pair, 1))
            solver.add(solver.field(container, None), [pair])
        else:
            solver.copy(element, solver.field(container, None))
    elif name in CONVERSIONS:
        solver.add(result, [Constant(CONVERSIONS[name])])
    elif name == "dict":
        container = Container("dict", ("builtin", name, result))
        solver.add(result, [container])
        for key, value in arguments.keywords:
            solver.copy(value, solver.field(container, key))
    elif name in ("property", "classmethod", "staticmethod") and positional:
        wrap = {"property": Property, "classmethod": ClassMethod, "staticmethod": StaticMethod}[name]
        solver.on(positional[0], lambda value: solver.add(result, [wrap(value)]))
    elif name == "getattr" and len(positional) >= 2:
        solver.on(positional[1], lambda key: getattr_call(solver, caller, site, positional[0], key, result))
        if len(positional) > 2:
            solver.copy(positional[2], result)
    elif name == "setattr" and len(positional) == 3:
        solver.on(
            positional[0],
            lambda obj: setattr_call(solver, obj, Arguments(positional[1:])) if isinstance(obj, Instance) else None,
        )
    elif name == "type" and len(positional) == 1:
        solver.on(
            positional[0], lambda value: solver.add(result, [Class(value.cls)]) if isinstance(value, Instance) else None
        )
    elif name == "super" and len(positional) == 2:
        solver.on(
            positional[0],
            lambda cls: solver.on(
                positional[1],
                lambda receiver: (
                    solver.add(result, [SuperObject(cls.qname, receiver)])
                    if isinstance(cls, Class) and isinstance(receiver, (Instance, Class))
                    else None
                ),
            ),
        )


def instances_of(solver: Solver, value: object, result: int) -> None:
    """An instance of a class, or of each class of a tuple of them (`except (A, B) as e`)."""
    if isinstance(value, Class):
        solver.add(result, [Instance(value.qname)])
    elif isinstance(value, Container):
        solver.on(solver.elements(value), functools.partial(instances_of, solver, result=result))


def builtin_method_result(solver: Solver, method: BuiltinMethod, result: int) -> None:
    if method.type != "str":
        return
    if method.name in STR_TO_STR:
        solver.add(result, [Constant("str")])
    elif method.name in STR_TO_LIST:
        container = Container("list", ("builtin", method.name, result))
        solver.add(result, [container])
        solver.add(solver.field(container, None), [Constant("str")])
    elif method.name == "encode":
        solver.add(result, [Constant("bytes")])


def getattr_call(
    solver: Solver, caller: ScopeKey, site: tuple[int, int], holder: int, key: object, result: int
) -> None:
    name = key.value if isinstance(key, Constant) else None
    if name is not None:
        solver.on(holder, lambda value: solver.load_attribute(caller, site, value, name, result))


def setattr_call(solver: Solver, receiver: Instance | None, arguments: Arguments) -> None:
    """`object.__setattr__(self, "name", value)` or `super().__setattr__("name", value)`."""
    positional = list(arguments.positional)
    if receiver is None:
        if len(positional) < 3:
            return
        holder, name, value = positional[:3]
        solver.on(
            holder,
            lambda obj: setattr_call(solver, obj, Arguments((name, value))) if isinstance(obj, Instance) else None,
        )
        return
    if len(positional) < 2:
        return
    name, value = positional[:2]
    solver.on(
        name,
        lambda key: (
            solver.copy(value, solver.node(("field", receiver.cls, key.value)))
            if isinstance(key, Constant) and key.value
            else None
        ),
    )


def container_method(solver: Solver, method: ContainerMethod, arguments: Arguments, result: int) -> None:
    container, name = method.container, method.name
    positional = arguments.positional
    if name in ("get", "pop", "setdefault", "popitem", "copy"):
        if name == "copy":
            solver.add(result, [container])
            return
        if name in ("get", "pop") and positional and container.kind == "dict":
            # `d.get("fr")`: that key's values, as `d["fr"]` reads them; any key's when unknown
            solver.on(
                positional[0],
                lambda key: solver.copy(
                    solver.field(container, key.value)
                    if isinstance(key, Constant) and key.value is not None
                    else solver.elements(container),
                    result,
                ),
            )
        else:
            solver.copy(solver.elements(container), result)
        if name in ("get", "pop") and len(positional) > 1:
            solver.copy(positional[1], result)
        if name == "setdefault" and len(positional) > 1:
            solver.copy(positional[1], solver.field(container, None))
    elif name in ("values", "keys", "items"):
        view = Container("list", (container, name))
        solver.add(result, [view])
        if name == "values":
            solver.copy(solver.elements(container), solver.field(view, None))
        elif name == "keys":
            solver.copy(solver.node(("keys", container)), solver.field(view, None))
        else:
            pair = Container("tuple", (container, "item"))
            solver.copy(solver.node(("keys", container)), solver.field(pair, 0))
            solver.copy(solver.elements(container), solver.field(pair, 1))
            solver.add(solver.field(view, None), [pair])
    elif name in ("append", "add", "insert"):
        if positional:
            solver.copy(positional[-1], solver.field(container, None))
    elif name in ("extend", "update"):
        for argument in positional:
            element = solver.fresh()
            iterate(solver, ("<container>", 0, None), (0, 0), argument, element)
            solver.copy(element, solver.field(container, None))
            solver.on(
                argument,
                lambda value: (
                    solver.copy(solver.elements(value), solver.elements(container))
                    if isinstance(value, Container)
                    else None
                ),
            )
        for key, value in arguments.keywords:
            solver.copy(value, solver.field(container, key))
