"""Which room of explorer imports which, and the largest modules.

A room is a subpackage of explorer (`query`, `query/flow`, ...) or a top-level module
(`model`, `trees`, ...). For each room the script prints its size and every other room it
imports, with how many names it imports from each (those imported inside functions counted
apart, as `lazy`), then the pairs of rooms that import each other, then the largest modules. Run it before and after a re-drawing of the
package to see what moved:

    python benchmarks/import_layers.py [--package explorer] [--largest 12]
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter, defaultdict
from pathlib import Path


def room_of(module: str, rooms: set[str]) -> str:
    """The deepest room that holds a dotted module name (`explorer.resolve.flow.solver` ->
    `query/flow`)."""
    parts = module.split(".")[1:]
    for depth in range(len(parts), 0, -1):
        candidate = "/".join(parts[:depth])
        if candidate in rooms:
            return candidate
    return parts[0] if parts else "(package)"


def module_name(package_root: Path, path: Path) -> str:
    relative = path.relative_to(package_root.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(tree: ast.Module, own: str, is_package: bool) -> list[tuple[str, bool]]:
    """Every explorer module an import statement names, and whether it sits inside a function."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend((alias.name, inner) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = own.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[: len(anchor) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                found.extend((f"{base}.{alias.name}", inner) for alias in child.names)
            visit(child, inner)

    visit(tree, False)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default=str(Path(__file__).resolve().parents[1] / "explorer"))
    parser.add_argument("--largest", type=int, default=12)
    args = parser.parse_args()
    package_root = Path(args.package).resolve()
    files = sorted(package_root.rglob("*.py"))
    rooms = {"/".join(path.parent.relative_to(package_root).parts) for path in files if path.name == "__init__.py"} - {
        ""
    }
    rooms |= {path.stem for path in files if path.parent == package_root and path.stem != "__init__"}
    modules = {module_name(package_root, path) for path in files}

    size: Counter[str] = Counter()
    edges: dict[str, Counter[tuple[str, bool]]] = defaultdict(Counter)
    lines_of: dict[str, int] = {}
    for path in files:
        own = module_name(package_root, path)
        source = path.read_text(encoding="utf-8")
        room = room_of(own, rooms)
        lines = source.count("\n")
        size[room] += lines
        lines_of[str(path.relative_to(package_root.parent))] = lines
        for name, lazy in imported_modules(ast.parse(source), own, path.name == "__init__.py"):
            if not name.startswith("explorer."):
                continue
            while name not in modules and "." in name:  # `from explorer.x import symbol`
                name = name.rsplit(".", 1)[0]
            other = room_of(name, rooms)
            if other != room:
                edges[room][(other, lazy)] += 1

    total = sum(size.values())
    print(f"{len(files)} modules, {total:,} lines, {len(size)} rooms\n")
    for room in sorted(size):
        imports = edges.get(room, Counter())
        shown = ", ".join(
            f"{other}{' (lazy)' if lazy else ''} {count}" for (other, lazy), count in sorted(imports.items())
        )
        print(f"{room:<18} {size[room]:>6,} lines  {size[room] / total:5.1%}  imports: {shown or '-'}")
    mutual = sorted(
        (room, other)
        for room, imports in edges.items()
        for other in {other for other, _ in imports}
        if room < other and any(back == room for back, _ in edges.get(other, Counter()))
    )
    shown_pairs = [f"{a} <-> {b}{' (a room and its own part)' if b.startswith(a + '/') else ''}" for a, b in mutual]
    print("\nrooms importing each other:", ", ".join(shown_pairs) or "none")
    print("\nlargest modules:")
    for path, lines in sorted(lines_of.items(), key=lambda item: (-item[1], item[0]))[: args.largest]:
        print(f"  {lines:>6,}  {path}")


if __name__ == "__main__":
    main()
