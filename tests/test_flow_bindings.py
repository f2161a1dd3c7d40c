"""Which scope binds a name, in the value-flow facts (parsers/python_flow.py): found in one
query pass (grammars/python/bindings.scm) and given to the innermost scope around it. Each
expected definition id is the byte offset of the name that binds it, read off SOURCE."""

from __future__ import annotations

import json

from explorer.parsers.python import parse_python

SOURCE = (
    "import os.path as p\n"
    "def outer(a):\n"
    "    global G\n"
    "    G = p\n"
    "    f = lambda: [x for x in a]\n"
    "    for i in a:\n"
    "        def inner(): pass\n"
    "        if (n := i): pass\n"
    "    return inner, n, x\n"
    "class K:\n"
    "    def m(self): return K\n"
)


def scopes() -> dict[str, tuple[list, list]]:
    header, *bodies = parse_python("pkg/mod.py", SOURCE.encode()).flow.split("\n")
    return {scope[0]: (scope, json.loads(body)) for scope, body in zip(json.loads(header), bodies, strict=True)}


def at(text: str, occurrence: int = 1) -> int:
    offset = -1
    for _ in range(occurrence):
        offset = SOURCE.index(text, offset + 1)
    return offset


def test_each_name_is_bound_by_the_scope_around_it():
    found = scopes()
    module, outer = found["pkg.mod"][1], found["pkg.mod.outer"][1]
    # the import and the def and class names are the module's
    assert ["bind", ["local", "p", at("p\n")], ["import", "os.path"], 1] in module
    assert ["bind", ["local", "outer", at("outer")], ["def", "pkg.mod.outer", 2], 2] in module
    assert ["bind", ["local", "K", at("K:")], ["class", "pkg.mod.K", 10], 10] in module
    # `global G` makes G free in outer, and the scope header lists it
    assert ["bind", ["free", "G"], ["name", "p", None], 4] in outer
    assert found["pkg.mod.outer"][0][6] == ["G"]
    # inner, bound in a loop, and n, bound by a walrus in an if inside it, reach the return
    # with their one definition each; x is the comprehension's own, so a read of the module's
    assert [
        "return",
        ["tuple", [["name", "inner", [at("inner")]], ["name", "n", [at("n :=")]], ["name", "x", None]]],
    ] in outer
    # a lambda whose body is a comprehension: x binds in the comprehension, not the lambda
    lambda_body = found["pkg.mod.outer.<lambda1>"][1]
    assert ["bind", ["local", "x", at("x in a")], ["elem", ["name", "a", None], 5, 19], 5] in lambda_body
    # a class body's names are not its methods': K in m reads the module's K
    assert found["pkg.mod.K.m"][1] == [["return", ["name", "K", None]]]


def test_a_loop_sees_what_its_own_body_binds_later():
    found = scopes()
    outer = found["pkg.mod.outer"][1]
    # the if's condition reads i: its definition is the for target, made before the body runs
    assert ["eval", ["name", "i", [at("i in")]]] in outer
