"""Value-flow facts of one Python file, from the tree the fast pass already parsed.

The facts are what a points-to solver (explorer/resolve/flow/) needs to know where values go,
and nothing about what they are: each scope (module, class body, function, lambda) with its
parameters and a flat list of statements, every expression a small tagged tuple. Order
within a scope matters only through local names: each assignment to a local is a
definition with an id (the byte offset of the name it binds), and each read of a local
names the definitions that may reach it, so `f = a; f = b; f()` calls only `b`, while an
assignment in an `if` branch, a loop or a `try` adds to what reaches past it.

The facts' shapes are described in explorer/flow_schema.py.

Python's scoping, as the solver needs it: a name bound anywhere in a function is local to
all of it unless declared global or nonlocal; comprehension variables are the
comprehension's own; a class body's names are not visible from its methods.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from typing import Any, Literal

from explorer import treesitter as tsx
from explorer.flow_schema import Const, Display, Expr, Item, NameRead, Param, ScopeHeader, Star, Stmt, Target
from explorer.parsers.python_operators import BINARY, COMPARISON, UNARY
from explorer.parsers.python_scope_names import ScopeBindings, scope_key

_MAX_DEPTH = 120  # deeper expressions are "unknown": nesting must not exhaust the stack
_UNKNOWN: Expr = ("unknown",)
_LITERALS = {
    "string": "str",
    "concatenated_string": "str",
    "integer": "int",
    "float": "float",
    "none": "None",
}
_BOOLS: dict[str, Const] = {"true": ("const", "bool", "True"), "false": ("const", "bool", "False")}
_DISPLAYS: dict[str, Literal["list", "tuple", "set"]] = {
    "list": "list",
    "tuple": "tuple",
    "set": "set",
    "expression_list": "tuple",
}
_CONDITIONAL = ("if_statement", "for_statement", "while_statement", "try_statement", "match_statement")
_COMPREHENSIONS = ("list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression")


def flow_facts(root: tsx.Node, module: str, package: str, found: dict[str, list[tsx.Node]]) -> str:
    """The file's scopes as compact JSON lines (see above). `package` is what a relative import
    is relative to (the module itself for a package's __init__, else its parent); `found`, the
    captures of a query that includes grammars/python/bindings.scm."""
    reader = _Reader(module, package, ScopeBindings(found))
    reader.scope(root, module, "module", ())
    lines = [json.dumps([scope for scope, _ in reader.scopes], separators=(",", ":"))]
    lines += [json.dumps(body, separators=(",", ":")) for _, body in reader.scopes]
    return "\n".join(lines)  # JSON escapes newlines inside strings: a line is one value


class _Reader:
    def __init__(self, module: str, package: str, bindings: ScopeBindings) -> None:
        self.module = module
        self.package = package
        self.bindings = bindings
        self.scopes: list[tuple[ScopeHeader, tuple[Stmt, ...]]] = []
        self.depth = 0  # scopes inside scopes (lambdas in lambdas): bounded like expressions

    # -- scopes ----------------------------------------------------------------------------

    def scope(
        self,
        node: tsx.Node,
        qname: str,
        kind: str,
        params: tuple[Param, ...],
        bases: tuple[Expr, ...] = (),
        returns: Expr | None = None,
    ) -> None:
        if self.depth > _MAX_DEPTH:
            return  # nested past reason: the scope's value stays, its body is not read
        self.depth += 1
        try:
            self._scope(node, qname, kind, params, bases, returns)
        finally:
            self.depth -= 1

    def _scope(
        self,
        node: tsx.Node,
        qname: str,
        kind: str,
        params: tuple[Param, ...],
        bases: tuple[Expr, ...],
        returns: Expr | None,
    ) -> None:
        body = node if kind == "module" else node.child_by_field_name("body")
        key = scope_key(node, body)
        bound = self.bindings.bound.get(key, []) if body is not None else []
        declared_free = self.bindings.free.get(key, set()) if body is not None else set()
        local_names = {name for _, name in bound} | {p[0] for p in params}
        local_names -= declared_free
        walker = _ScopeWalker(self, qname, kind, local_names, declared_free, bound)
        for name, _, _, ident, _ in params:
            walker.current[name] = frozenset({ident})
        # parameter defaults are evaluated where the def runs: the walker of the parent holds them
        if kind == "lambda" and body is not None:
            walker.statements.append(("return", walker.expr(body)))
        elif body is not None:
            walker.block(body)
        statements = tuple(walker.statements)
        free = sorted({s[1][1] for s in statements if s[0] == "bind" and s[1][0] == "free"})
        header = ScopeHeader(qname, kind, tsx.line(node), params, bases, walker.generator, free, returns)
        self.scopes.append((header, statements))


class _ScopeWalker:
    """Walks one scope's statements in order, keeping which definitions of each local reach."""

    def __init__(
        self,
        reader: _Reader,
        qname: str,
        kind: str,
        local_names: set[str],
        declared_free: set[str],
        bound: list[tuple[int, str]],
    ) -> None:
        self.reader = reader
        self.qname = qname
        self.kind = kind
        self.local_names = local_names
        self.declared_free = declared_free
        self.bound = bound  # (offset, name) of each binding in this scope, in document order
        self.bound_offsets = [offset for offset, _ in bound]
        self.current: dict[str, frozenset[int]] = {}
        self.statements: list[Stmt] = []
        self.generator = False
        self.lambdas = 0
        self.temporaries = 0
        self.comprehension_names: list[dict[str, frozenset[int]]] = []
        self.nesting = 0  # branches and loops around the statement being read
        self.unconditional: set[int] = set()  # definitions made outside any branch or loop

    # -- statements ------------------------------------------------------------------------

    def block(self, node: tsx.Node) -> None:
        for child in node.named_children:
            self.statement(child)

    def statement(self, node: tsx.Node) -> None:
        if node.type in _CONDITIONAL:
            self.nesting += 1
            try:
                self._statement(node)
            finally:
                self.nesting -= 1
        else:
            self._statement(node)

    def _statement(self, node: tsx.Node) -> None:
        kind = node.type
        if kind == "expression_statement":
            for child in node.named_children:
                self.expression_statement(child)
        elif kind == "return_statement":
            value = node.named_children[0] if node.named_children else None
            self.statements.append(("return", self.expr(value) if value is not None else ("const", "None")))
        elif kind in ("function_definition", "class_definition", "decorated_definition"):
            self.definition(node)
        elif kind == "if_statement":
            self.branches(node)
        elif kind in ("for_statement", "while_statement"):
            self.loop(node)
        elif kind == "try_statement":
            self.try_block(node)
        elif kind == "with_statement":
            self.with_block(node)
        elif kind == "match_statement":
            self.match_block(node)
        elif kind == "raise_statement":
            value = node.named_children[0] if node.named_children else None
            if value is not None:
                self.statements.append(("raise", self.expr(value), tsx.line(node)))
        elif kind in ("import_statement", "import_from_statement", "future_import_statement"):
            self.imports(node)
        elif kind in ("assert_statement", "delete_statement", "print_statement", "exec_statement"):
            for child in node.named_children:
                self.statements.append(("eval", self.expr(child)))
        elif kind in ("block", "module"):
            self.block(node)
        # pass, break, continue, global, nonlocal, type aliases: nothing flows

    def expression_statement(self, node: tsx.Node) -> None:
        if node.type == "assignment":
            self.assignment(node)
        elif node.type == "augmented_assignment":
            left = tsx.field(node, "left")
            operator = node.child_by_field_name("operator")
            written = tsx.text(operator) if operator is not None else "+="
            binary, reflected, method = BINARY.get(written[:-1], BINARY["+"])
            value: Expr = (
                "augmented",
                self.expr(left),
                self.expr(node.child_by_field_name("right")),
                method,
                tsx.line(node),
                node.start_point[1],
                binary,
                reflected,
            )
            self.assign(left, value, tsx.line(node))
        elif node.type == "yield":
            self.generator = True
            self.statements.append(("yield", self.yield_value(node)))
        else:
            self.statements.append(("eval", self.expr(node)))

    def assignment(self, node: tsx.Node) -> None:
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None:  # `x: int` declares, binds nothing
            return
        if right.type == "assignment":  # a = b = value: the value once, bound to each name
            targets = [left]
            while right is not None and right.type == "assignment":
                targets.append(right.child_by_field_name("left"))
                right = right.child_by_field_name("right")
            value = self.held(self.value_of(right), tsx.line(node))
            for target in targets:
                if target is not None:
                    self.assign(target, value, tsx.line(node))
            return
        if left is not None:
            self.assign(left, self.value_of(right), tsx.line(node))

    def value_of(self, node: tsx.Node | None) -> Expr:
        if node is not None and node.type == "yield":
            self.generator = True
            value = self.yield_value(node)
            self.statements.append(("yield", value))
            return _UNKNOWN  # what send() passes in
        return self.expr(node)

    def yield_value(self, node: tsx.Node) -> Expr:
        children = node.named_children
        if not children:
            return ("const", "None")
        if any(child.type == "from" for child in node.children):  # yield from E: E's elements
            return ("elem", self.expr(children[0]), tsx.line(node), node.start_point[1])
        return self.expr(children[0])

    def held(self, value: Expr, line: int) -> Expr:
        """A value used twice (unpacking, chained assignment) is bound to a temporary first,
        so the call that made it is made once."""
        if value[0] in ("name", "const", "def", "class", "unknown"):
            return value
        self.temporaries += 1
        name = f"${self.temporaries}"
        ident = -self.temporaries
        self.statements.append(("bind", ("local", name, ident), value, line))
        return ("name", name, (ident,))

    def assign(self, target: tsx.Node, value: Expr, line: int) -> None:
        kind = target.type
        if kind == "identifier":
            self.statements.append(("bind", self.store(target), value, line))
        elif kind == "attribute":
            obj = self.expr(target.child_by_field_name("object"))
            attribute = target.child_by_field_name("attribute")
            if attribute is not None:  # missing in a broken file
                self.statements.append(
                    ("bind", ("attr", obj, tsx.text(attribute), line, attribute.start_point[1]), value, line)
                )
        elif kind == "subscript":
            self.statements.append(("bind", self.subscript(target, 0), value, line))
        elif kind in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"):
            held = self.held(value, line)
            parts = [child for child in target.named_children if child.type != "comment"]
            starred = next(
                (i for i, part in enumerate(parts) if part.type in ("list_splat_pattern", "list_splat")), None
            )
            for index, part in enumerate(parts):
                if part.type in ("list_splat_pattern", "list_splat"):
                    inner = part.named_children[0] if part.named_children else None
                    if inner is not None:
                        self.assign(inner, ("list", (("elem", held, line, part.start_point[1]),)), line)
                    continue
                key = index if starred is None or index < starred else None
                self.assign(part, ("item", held, key), line)
        elif kind in ("parenthesized_expression",) and target.named_children:
            self.assign(target.named_children[0], value, line)
        # other targets (a call's result, a slice of a literal) bind nothing a call can reach

    def store(self, name_node: tsx.Node) -> Target:
        name = tsx.text(name_node)
        if name in self.declared_free or name not in self.local_names:
            return ("free", name)
        ident = name_node.start_byte
        self.current[name] = frozenset({ident})
        if self.nesting == 0:
            self.unconditional.add(ident)
        return ("local", name, ident)

    def definitions_in(self, nodes: list[tsx.Node | None]) -> dict[str, frozenset[int]]:
        """The definitions of locals that the scope's own statements inside `nodes` make."""
        found: dict[str, set[int]] = {}
        for node in nodes:
            if node is None:
                continue
            index = bisect_left(self.bound_offsets, node.start_byte)
            while index < len(self.bound) and self.bound[index][0] < node.end_byte:
                offset, name = self.bound[index]
                if name in self.local_names:
                    found.setdefault(name, set()).add(offset)
                index += 1
        return {name: frozenset(ids) for name, ids in found.items()}

    def definition(self, node: tsx.Node) -> None:
        decorators = []
        while node.type == "decorated_definition":
            decorators += [d for d in node.named_children if d.type == "decorator"]
            inner = node.child_by_field_name("definition")
            if inner is None:
                return
            node = inner
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        qname = f"{self.qname}.{tsx.text(name_node)}"
        if node.type == "class_definition":
            bases = self.arguments(node.child_by_field_name("superclasses"), tsx.line(node))
            value: Expr = ("class", qname, tsx.line(node))
            self.reader.scope(node, qname, "class", (), bases)
        else:
            params = self.parameters(node.child_by_field_name("parameters"))
            value = ("def", qname, tsx.line(node))
            declared = _declared_type(node.child_by_field_name("return_type"))
            self.reader.scope(
                node, qname, "function", params, (), self.expr(declared) if declared is not None else None
            )
        # decorators apply bottom up; each is a call made where the def runs
        for decorator in reversed(decorators):
            expression = decorator.named_children[0] if decorator.named_children else None
            if expression is None:
                continue
            function = self.expr(expression)
            value = ("call", function, (value,), (), tsx.line(decorator), decorator.start_point[1] + 1)
        self.statements.append(("bind", self.store(name_node), value, tsx.line(node)))

    def arguments(self, node: tsx.Node | None, line: int) -> tuple[Any, ...]:
        """A class's bases: positional arguments of its superclasses list (keywords such as
        metaclass= are evaluated, not bases)."""
        if node is None:
            return ()
        bases = []
        for child in node.named_children:
            if child.type == "keyword_argument":
                self.statements.append(("eval", self.expr(child.child_by_field_name("value"))))
            elif child.type not in ("list_splat", "dictionary_splat", "comment"):
                bases.append(self.expr(child))
        return tuple(bases)

    def parameters(self, node: tsx.Node | None) -> tuple[Param, ...]:
        if node is None:
            return ()
        params: list[Param] = []
        keyword_only = False
        for child in node.named_children:
            kind = child.type
            if kind == "keyword_separator":
                keyword_only = True
                continue
            if kind in ("list_splat_pattern", "dictionary_splat_pattern"):
                inner = child.named_children[0] if child.named_children else None
                if inner is not None and inner.type == "identifier":
                    params.append(
                        Param(
                            tsx.text(inner),
                            "star" if kind == "list_splat_pattern" else "starstar",
                            None,
                            inner.start_byte,
                            None,
                        )
                    )
                keyword_only = keyword_only or kind == "list_splat_pattern"
                continue
            name_node, default, annotation = _parameter_parts(child)
            if name_node is None:
                continue
            if name_node.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                inner = name_node.named_children[0] if name_node.named_children else None
                if inner is not None:
                    star = "star" if name_node.type == "list_splat_pattern" else "starstar"
                    params.append(Param(tsx.text(inner), star, None, inner.start_byte, None))
                    keyword_only = keyword_only or star == "star"
                continue
            value = self.expr(default) if default is not None else None
            declared = _declared_type(annotation)
            params.append(
                Param(
                    tsx.text(name_node),
                    "kwonly" if keyword_only else "pos",
                    value,
                    name_node.start_byte,
                    self.expr(declared) if declared is not None else None,
                )
            )
        return tuple(params)

    def branches(self, node: tsx.Node) -> None:
        """if / elif / else: what any branch binds reaches past it, and without an else, what
        reached before does too."""
        condition = node.child_by_field_name("condition")
        self.statements.append(("eval", self.expr(condition)))
        guard = self.guard(condition)
        before = dict(self.current)
        outcomes = []
        consequence = node.child_by_field_name("consequence")
        alternatives = node.children_by_field_name("alternative")
        if guard is not None and consequence is not None:
            name, truth = guard
            self.statements.append(("guard", name, truth, tsx.line(consequence), tsx.end_line(consequence)))
            if alternatives:
                self.statements.append(
                    ("guard", name, not truth, tsx.line(alternatives[0]), tsx.end_line(alternatives[-1]))
                )
            elif _leaves(consequence) and node.parent is not None and tsx.end_line(node.parent) > tsx.end_line(node):
                # `if flag: return a()` then `return b()`: what follows runs where flag is false
                self.statements.append(("guard", name, not truth, tsx.end_line(node) + 1, tsx.end_line(node.parent)))
        if consequence is not None:
            self.block(consequence)
        outcomes.append(self.current)
        has_else = False
        for alternative in alternatives:
            self.current = dict(before)
            if alternative.type == "elif_clause":
                self.statements.append(("eval", self.expr(alternative.child_by_field_name("condition"))))
                body = alternative.child_by_field_name("consequence")
            else:
                has_else = True
                body = alternative.child_by_field_name("body")
            if body is not None:
                self.block(body)
            outcomes.append(self.current)
        if not has_else:
            outcomes.append(before)
        self.current = _merge(outcomes)

    def guard(self, condition: tsx.Node | None) -> tuple[NameRead, bool] | None:
        """`if NAME:` or `if not NAME:` on a local: the name, as its definitions made outside
        any branch or loop, and whether the branch runs where it is true."""
        truth = True
        while condition is not None and condition.type in ("parenthesized_expression", "not_operator"):
            if condition.type == "not_operator":
                truth = not truth
                condition = condition.child_by_field_name("argument")
            else:
                inner = [child for child in condition.named_children if child.type != "comment"]
                condition = inner[0] if len(inner) == 1 else None
        if condition is None or condition.type != "identifier":
            return None
        read = self.read(tsx.text(condition))
        if read[2] is None:
            return None
        unconditional = tuple(ident for ident in read[2] if ident in self.unconditional)
        return (("name", read[1], unconditional), truth) if unconditional else None

    def loop(self, node: tsx.Node) -> None:
        """A loop body runs any number of times: its reads also see what a later statement of
        the body binds (on the next pass), and what it binds reaches past the loop."""
        before = dict(self.current)
        line = tsx.line(node)
        if node.type == "for_statement":
            iterable = self.held(self.expr(node.child_by_field_name("right")), line)
            target = node.child_by_field_name("left")
            body_defs = self.definitions_in([node.child_by_field_name("body"), target])
            self.current = _merge([self.current, body_defs])
            if target is not None:
                self.assign(target, ("elem", iterable, line, node.start_point[1]), line)
        else:
            body_defs = self.definitions_in([node.child_by_field_name("body"), node.child_by_field_name("condition")])
            self.current = _merge([self.current, body_defs])
            self.statements.append(("eval", self.expr(node.child_by_field_name("condition"))))
        body = node.child_by_field_name("body")
        if body is not None:
            self.block(body)
        after = self.current
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            self.block(alternative)
        self.current = _merge([before, after, self.current])

    def try_block(self, node: tsx.Node) -> None:
        """Any statement of a try may be the last to run: every binding in it reaches the
        handlers and past the try."""
        before = dict(self.current)
        body = node.child_by_field_name("body")
        seen = [before]
        if body is not None:
            self.block(body)
            seen.append(self.current)
        inside = _merge([before, self.definitions_in([body])])
        for clause in node.named_children:
            if clause.type in ("except_clause", "except_group_clause"):
                self.current = dict(inside)
                for part in clause.named_children:
                    if part.type == "block":
                        self.block(part)
                    elif part.type == "as_pattern":
                        caught = self.expr(part.named_children[0])
                        alias = part.child_by_field_name("alias")
                        if alias is not None and alias.named_children:
                            # `except E as e`: e is an instance of (one of) the classes caught
                            self.statements.append(
                                ("bind", self.store(alias.named_children[0]), ("caught", caught), tsx.line(part))
                            )
                        else:
                            self.statements.append(("eval", caught))
                    else:
                        self.statements.append(("eval", self.expr(part)))
                seen.append(self.current)
            elif clause.type == "else_clause":
                self.current = dict(seen[1] if len(seen) > 1 else before)
                block = clause.child_by_field_name("body")
                if block is not None:
                    self.block(block)
                seen.append(self.current)
        self.current = _merge(seen)
        for clause in node.named_children:
            if clause.type == "finally_clause":
                for part in clause.named_children:
                    if part.type == "block":
                        self.block(part)

    def with_block(self, node: tsx.Node) -> None:
        line = tsx.line(node)
        for clause in node.named_children:
            if clause.type != "with_clause":
                continue
            for item in clause.named_children:
                value = item.child_by_field_name("value") if item.type == "with_item" else item
                if value is None:
                    continue
                alias = None
                if value.type == "as_pattern":
                    alias = value.child_by_field_name("alias")
                    value = value.named_children[0]
                held = self.held(self.expr(value), line)
                self.statements.append(("enter", held, line, item.start_point[1]))
                if alias is not None:
                    target = (
                        alias.named_children[0] if alias.type == "as_pattern_target" and alias.named_children else alias
                    )
                    entered: Expr = ("call", ("attr", held, "__enter__"), (), (), line, item.start_point[1])
                    self.assign(target, entered, line)
        body = node.child_by_field_name("body")
        if body is not None:
            self.block(body)

    def match_block(self, node: tsx.Node) -> None:
        subject = node.child_by_field_name("subject")
        if subject is not None:
            self.statements.append(("eval", self.expr(subject)))
        before = dict(self.current)
        outcomes = [before]
        body = node.child_by_field_name("body")
        for case in body.named_children if body is not None else ():
            self.current = dict(before)
            consequence = case.child_by_field_name("consequence")
            if consequence is not None:
                self.block(consequence)
            outcomes.append(self.current)
        self.current = _merge(outcomes)

    def imports(self, node: tsx.Node) -> None:
        if node.type == "future_import_statement":
            return
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "dotted_name":  # import a.b binds a, the top package
                    dotted = tsx.text(child)
                    head = child.named_children[0] if child.named_children else child
                    self.statements.append(("bind", self.store(head), ("import", dotted.split(".")[0]), tsx.line(node)))
                elif child.type == "aliased_import":
                    alias = child.child_by_field_name("alias")
                    if alias is not None:
                        target = tsx.text(child.child_by_field_name("name"))
                        self.statements.append(("bind", self.store(alias), ("import", target), tsx.line(node)))
            return
        source_node = node.child_by_field_name("module_name")
        if source_node is None:
            return
        source = self.absolute(tsx.text(source_node))
        if any(child.type == "wildcard_import" for child in node.named_children):
            self.statements.append(("star_import", source))
            return
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = tsx.text(child.child_by_field_name("name"))
                bound = child.child_by_field_name("alias")
            else:
                name, bound = tsx.text(child), child
            if bound is not None:
                target = f"{source}.{name}" if source else name
                self.statements.append(("bind", self.store(bound), ("import", target), tsx.line(node)))

    def absolute(self, written: str) -> str:
        """`.ops` in package torch.nn -> torch.nn.ops; `..x` one package up."""
        dots = len(written) - len(written.lstrip("."))
        if not dots:
            return written
        parts = self.reader.package.split(".") if self.reader.package else []
        base = parts[: len(parts) - (dots - 1)] if dots - 1 <= len(parts) else []
        rest = written[dots:]
        return ".".join([*base, rest] if rest else base)

    # -- expressions -----------------------------------------------------------------------

    def expr(self, node: tsx.Node | None, depth: int = 0) -> Expr:
        if node is None or depth > _MAX_DEPTH:
            return _UNKNOWN
        kind = node.type
        if kind == "identifier":
            return self.read(tsx.text(node))
        if kind == "string":
            self.interpolated(node, depth)
            text = _key(node)  # a plain string's value is kept: getattr(x, "name"), d["key"]
            return ("const", "str", text) if isinstance(text, str) and len(text) <= 80 else ("const", "str")
        if kind == "concatenated_string":
            for part in node.named_children:
                self.interpolated(part, depth)
            return ("const", "str")
        if kind in _LITERALS:
            return ("const", _LITERALS[kind])
        if kind in _BOOLS:
            return _BOOLS[kind]
        if kind == "call":
            return self.call(node, depth)
        if kind == "attribute":
            name = node.child_by_field_name("attribute")
            obj = self.expr(node.child_by_field_name("object"), depth + 1)
            if name is None:  # `x.` in a file the grammar reads in part
                return ("attr", obj, "")
            # where the name is: reading it may run a method (a property, `__getattr__`)
            return ("attr", obj, tsx.text(name), tsx.line(name), name.start_point[1])
        if kind == "subscript":
            return self.subscript(node, depth)
        if kind == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            return self.expr(inner[0], depth + 1) if inner else _UNKNOWN
        if kind in _DISPLAYS:
            elements = tuple(self.element(child, depth) for child in node.named_children if child.type != "comment")
            display: Display = (_DISPLAYS[kind], elements)
            return display
        if kind == "dictionary":
            pairs = []
            for child in node.named_children:
                if child.type == "pair":
                    pairs.append(
                        (
                            _key(child.child_by_field_name("key")),
                            self.expr(child.child_by_field_name("value"), depth + 1),
                        )
                    )
                elif child.type == "dictionary_splat" and child.named_children:
                    pairs.append((None, ("elem", self.expr(child.named_children[0], depth + 1), tsx.line(child), 0)))
            return ("dict", tuple(pairs))
        if kind == "conditional_expression":
            parts = node.named_children
            if len(parts) == 3:
                self.statements.append(("eval", self.expr(parts[1], depth + 1)))
                return ("any", (self.expr(parts[0], depth + 1), self.expr(parts[2], depth + 1)))
            return _UNKNOWN
        if kind == "boolean_operator":
            return (
                "any",
                (
                    self.expr(node.child_by_field_name("left"), depth + 1),
                    self.expr(node.child_by_field_name("right"), depth + 1),
                ),
            )
        if kind == "binary_operator":
            return self.binary(node, depth)
        if kind == "unary_operator":
            operator = node.child_by_field_name("operator")
            argument = node.child_by_field_name("argument")
            method = UNARY.get(tsx.text(operator)) if operator is not None else None
            if operator is None or method is None or argument is None:
                return _UNKNOWN
            return ("unop", self.expr(argument, depth + 1), method, tsx.line(operator), operator.start_point[1])
        if kind == "comparison_operator":
            return self.comparison(node, depth)
        if kind == "not_operator":
            for child in node.named_children:
                self.evaluated(child, depth)
            return ("const", "bool")
        if kind == "lambda":
            return self.lambda_(node)
        if kind in _COMPREHENSIONS:
            return self.comprehension(node, depth)
        if kind == "named_expression":
            value = self.expr(node.child_by_field_name("value"), depth + 1)
            name = node.child_by_field_name("name")
            if name is not None:
                held = self.held(value, tsx.line(node))
                self.statements.append(("bind", self.store(name), held, tsx.line(node)))
                return held
            return value
        if kind == "await":
            return self.expr(node.named_children[0], depth + 1) if node.named_children else _UNKNOWN
        if kind == "yield":
            return self.value_of(node)
        for child in node.named_children:  # slices, starred: calls inside still run
            self.evaluated(child, depth)
        return _UNKNOWN

    def interpolated(self, string: tsx.Node, depth: int) -> None:
        """An f-string's `{...}` parts run when it is made: `f"{g()} {h(1):>{width()}}"` calls
        g, h and width (a format spec may hold fields of its own)."""
        pending = [child for child in string.named_children if child.type == "interpolation"]
        while pending:
            field = pending.pop(0)
            for part in field.named_children:
                if part.type == "format_specifier":
                    pending += [
                        inner for inner in part.named_children if inner.type in ("interpolation", "format_expression")
                    ]
                elif part.type != "type_conversion":
                    self.evaluated(part, depth + 1)

    def subscript(self, node: tsx.Node, depth: int) -> Item:
        """`obj[index]`, at its `[`: the key when it is a constant, and the index as an
        expression (what `__getitem__` or `__setitem__` is handed; calls inside it run)."""
        obj = self.expr(node.child_by_field_name("value"), depth + 1)
        parts = node.children_by_field_name("subscript")
        key = _key(parts[0]) if len(parts) == 1 else None
        if len(parts) == 1:
            index = self.expr(parts[0], depth + 1)
        else:
            index = ("tuple", tuple(self.expr(part, depth + 1) for part in parts))
        bracket = next((child for child in node.children if child.type == "["), node)
        return ("item", obj, key, tsx.line(bracket), bracket.start_point[1], index)

    def binary(self, node: tsx.Node, depth: int) -> Expr:
        operator = node.child_by_field_name("operator")
        left = self.expr(node.child_by_field_name("left"), depth + 1)
        right = self.expr(node.child_by_field_name("right"), depth + 1)
        methods = BINARY.get(tsx.text(operator)) if operator is not None else None
        if operator is None or methods is None:
            return _UNKNOWN
        return ("binop", left, right, methods[0], methods[1], tsx.line(operator), operator.start_point[1])

    def comparison(self, node: tsx.Node, depth: int) -> Expr:
        """`a < b <= c` is `a < b and b <= c`: each pair its own operator call (the middle
        operand made once); `in` asks the right operand (`__contains__`); `is` runs nothing."""
        operands = [child for child in node.children if child.is_named and child.type != "comment"]
        operators = [child for child in node.children if not child.is_named]
        if len(operators) != len(operands) - 1:
            for child in operands:
                self.evaluated(child, depth)
            return ("const", "bool")
        values = [self.expr(operands[0], depth + 1)]
        for index, operand in enumerate(operands[1:], 1):
            value = self.expr(operand, depth + 1)
            values.append(self.held(value, tsx.line(operand)) if index < len(operands) - 1 else value)
        results: list[Expr] = []
        for index, operator in enumerate(operators):
            left, right = values[index], values[index + 1]
            written = operator.type
            line, column = tsx.line(operator), operator.start_point[1]
            if written in COMPARISON:
                method, reflected = COMPARISON[written]
                results.append(("binop", left, right, method, reflected, line, column))
            elif written in ("in", "not in"):
                results.append(("binop", right, left, "__contains__", None, line, column))
            else:  # is, is not: identity, no method
                for value in (left, right):
                    if _has_call(value):
                        self.statements.append(("eval", value))
                results.append(("const", "bool"))
        return results[0] if len(results) == 1 else ("any", tuple(results))

    def evaluated(self, node: tsx.Node, depth: int) -> None:
        value = self.expr(node, depth + 1)
        if _has_call(value):
            self.statements.append(("eval", value))

    def element(self, node: tsx.Node, depth: int) -> Expr:
        if node.type in ("list_splat", "parenthesized_list_splat") and node.named_children:
            return ("elem", self.expr(node.named_children[0], depth + 1), tsx.line(node), node.start_point[1])
        return self.expr(node, depth + 1)

    def read(self, name: str) -> NameRead:
        for frame in reversed(self.comprehension_names):
            if name in frame:
                return ("name", name, tuple(sorted(frame[name])))
        if name in self.local_names and name not in self.declared_free:
            return ("name", name, tuple(sorted(self.current.get(name, ()))))
        return ("name", name, None)

    def call(self, node: tsx.Node, depth: int) -> Expr:
        function_node = node.child_by_field_name("function")
        line, column = tsx.line(node), node.start_point[1]
        if function_node is not None and function_node.type == "identifier" and tsx.text(function_node) == "super":
            arguments = node.child_by_field_name("arguments")
            if arguments is None or not arguments.named_children:
                return ("super", line, column)
        function = self.expr(function_node, depth + 1)
        arguments = node.child_by_field_name("arguments")
        positional: list[Expr | Star] = []
        keywords: list[tuple[str | None, Expr]] = []
        if arguments is not None and arguments.type == "generator_expression":
            positional.append(self.expr(arguments, depth + 1))
        elif arguments is not None:
            for argument in arguments.named_children:
                if argument.type == "keyword_argument":
                    keywords.append(
                        (
                            tsx.text(argument.child_by_field_name("name")),
                            self.expr(argument.child_by_field_name("value"), depth + 1),
                        )
                    )
                elif argument.type == "dictionary_splat":
                    keywords.append(
                        (
                            None,
                            self.expr(argument.named_children[0], depth + 1) if argument.named_children else _UNKNOWN,
                        )
                    )
                elif argument.type == "list_splat":
                    positional.append(
                        (
                            "star",
                            self.expr(argument.named_children[0], depth + 1) if argument.named_children else _UNKNOWN,
                        )
                    )
                elif argument.type != "comment":
                    positional.append(self.expr(argument, depth + 1))
        return ("call", function, tuple(positional), tuple(keywords), line, column)

    def lambda_(self, node: tsx.Node) -> Expr:
        self.lambdas += 1
        qname = f"{self.qname}.<lambda{self.lambdas}>"
        params = self.parameters(node.child_by_field_name("parameters"))
        self.reader.scope(node, qname, "lambda", params)
        return ("lambda", qname, tsx.line(node))

    def comprehension(self, node: tsx.Node, depth: int) -> Expr:
        """The comprehension's own names, bound clause by clause; its value a container of what
        its body makes (a generator expression is iterated like a list)."""
        frame: dict[str, frozenset[int]] = {}
        self.comprehension_names.append(frame)
        try:
            for clause in node.named_children:
                if clause.type == "for_in_clause":
                    iterable = self.held(self.expr(clause.child_by_field_name("right"), depth + 1), tsx.line(clause))
                    target = clause.child_by_field_name("left")
                    if target is not None:
                        self.bind_comprehension(
                            target, ("elem", iterable, tsx.line(clause), clause.start_point[1]), frame
                        )
                elif clause.type == "if_clause":
                    for condition in clause.named_children:
                        self.evaluated(condition, depth)
            body = node.child_by_field_name("body")
            if node.type == "dictionary_comprehension" and body is not None and body.type == "pair":
                return ("dict", ((None, self.expr(body.child_by_field_name("value"), depth + 1)),))
            element = self.expr(body, depth + 1)
            return ("set" if node.type == "set_comprehension" else "list", (element,))
        finally:
            self.comprehension_names.pop()

    def bind_comprehension(self, target: tsx.Node, value: Expr, frame: dict[str, frozenset[int]]) -> None:
        if target.type == "identifier":
            name = tsx.text(target)
            frame[name] = frozenset({target.start_byte})
            self.statements.append(("bind", ("local", name, target.start_byte), value, tsx.line(target)))
            return
        if target.type in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list"):
            held = self.held(value, tsx.line(target))
            for index, part in enumerate(target.named_children):
                self.bind_comprehension(part, ("item", held, index), frame)


# -- helpers ---------------------------------------------------------------------------------


def _key(node: tsx.Node | None) -> str | int | None:
    """A subscript or dict key that is a constant: a plain string or a (negative) integer."""
    if node is None:
        return None
    if node.type == "integer":
        try:
            return int(tsx.text(node), 0)
        except ValueError:
            return None
    if node.type == "unary_operator" and tsx.text(node).startswith("-"):
        inner = node.named_children[-1] if node.named_children else None
        value = _key(inner)
        return -value if isinstance(value, int) else None
    if node.type == "string":
        text = tsx.text(node)
        if text[:1] in "\"'" and not any(child.type == "interpolation" for child in node.named_children):
            quote = text[0] * 3 if text[:3] in ('"""', "'''") else text[0]
            if text.endswith(quote) and len(text) >= 2 * len(quote) and "\\" not in text:
                return text[len(quote) : -len(quote)]
    return None


def _leaves(block: tsx.Node) -> bool:
    """Whether a block always ends by leaving (its last statement a return or raise)."""
    statements = [child for child in block.named_children if child.type != "comment"]
    return bool(statements) and statements[-1].type in ("return_statement", "raise_statement")


def _parameter_parts(node: tsx.Node) -> tuple[tsx.Node | None, tsx.Node | None, tsx.Node | None]:
    """A parameter's name, default and annotation."""
    kind = node.type
    if kind == "identifier":
        return node, None, None
    if kind == "typed_parameter":
        inner = node.named_children[0] if node.named_children else None
        return inner, None, node.child_by_field_name("type")
    if kind in ("default_parameter", "typed_default_parameter"):
        return node.child_by_field_name("name"), node.child_by_field_name("value"), node.child_by_field_name("type")
    return None, None, None


def _declared_type(annotation: tsx.Node | None) -> tsx.Node | None:
    """The class a parameter's annotation names, as a dotted name: `Tensor`, `torch.Tensor`,
    and the same in `Optional[...]` or `... | None`. Anything else (a union, a generic, a
    string) declares nothing the solver uses."""
    node = annotation
    while node is not None and node.type in ("type", "type_parameter"):
        node = node.named_children[0] if len(node.named_children) == 1 else None
    if node is None:
        return None
    if node.type == "generic_type" and len(node.named_children) == 2 and tsx.text(node.named_children[0]) == "Optional":
        return _declared_type(node.named_children[1])  # Optional[Tensor]
    if (
        node.type == "subscript"
        and tsx.text(node.child_by_field_name("value") or node).rpartition(".")[2] == "Optional"
    ):
        subscripts = node.children_by_field_name("subscript")
        return _declared_type(subscripts[0]) if len(subscripts) == 1 else None  # typing.Optional[torch.Tensor]
    if (
        node.type == "binary_operator"
        and (right := node.child_by_field_name("right")) is not None
        and right.type == "none"
    ):
        return _declared_type(node.child_by_field_name("left"))  # torch.Tensor | None
    return node if node.type in ("identifier", "attribute") else None


def _merge(states: list[dict[str, frozenset[int]]]) -> dict[str, frozenset[int]]:
    merged: dict[str, frozenset[int]] = {}
    for state in states:
        for name, ids in state.items():
            merged[name] = merged.get(name, frozenset()) | ids
    return merged


_RUNS = frozenset({"call", "binop", "unop", "augmented"})  # expressions that may run a method


def _has_call(value: Expr) -> bool:
    """Whether evaluating the expression may run code: a call, an operator (a method of its
    operand), or an item written in the source (`__getitem__`)."""
    stack: list[Any] = [value]  # expressions, and the tuples of them some expressions hold
    while stack:
        current = stack.pop()
        if isinstance(current, tuple):
            if current and (current[0] in _RUNS or (current[0] == "item" and len(current) > 3)):
                return True
            stack.extend(item for item in current if isinstance(item, tuple))
    return False
