"""`callers` of a property are where its attribute is read (the getter) or assigned (the
setter): reading `d.type_code` runs `device.type_code`, as callees and trace have it, though
no call is written. Before, the candidates came from call rows alone, and a property had no
callers. Every expected place is read off the source."""

from __future__ import annotations

from explorer.analysis import callers_of, neighbours_of
from explorer.model import CallNode, Layer
from explorer.resolve import CallGraph
from tests.conftest import indexed_tree
from tests.places import path_line


def callers(store, root, query):
    report = neighbours_of(store, root, query, "callers")
    return [
        (n.node.symbol.qname, n.node.symbol.line, n.edge.resolution.value, path_line(n.edge.site)) for n in report.found
    ]


def test_a_property_is_called_where_its_attribute_is_read(sample_store, sample_root):
    # torch/_extension/core.py:139 `@property` over 140 `def type_code(self) -> int:`, read at
    # arguments.py:430 `value.type_code`, factories.py:68 `d.type_code` (and :71, the same
    # definition) and tensor.py:284 `new_device.type_code,`
    assert callers(sample_store, sample_root, "torch._extension.core.device.type_code") == [
        ("torch._extension.arguments.to_thparg", 384, "exact", ("torch/_extension/arguments.py", 430)),
        ("torch._extension.factories._new", 62, "exact", ("torch/_extension/factories.py", 68)),
        ("torch._extension.tensor.TensorBase.to", 272, "exact", ("torch/_extension/tensor.py", 284)),
    ]


BOX = """\
class Box:
    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value

    def grow(self):
        self.size = self.size + 1


def make():
    box = Box()
    return box.size


def labels():
    return {"size": 1}
"""


def test_a_getter_is_called_where_it_is_read(tmp_path):
    # box.py:11 `self.size = self.size + 1` reads; box.py:16 `return box.size` reads; the
    # string "size" at :20 is no attribute. The setter (box.py:7) has no callers: the solver
    # does not run a setter where the attribute is assigned, and trace has none either.
    with indexed_tree(tmp_path / "tree", {"box.py": BOX}) as (store, root):
        getter, setter = sorted(store.symbols_with_qname("box.Box.size"), key=lambda s: s.line or 0)
        graph = CallGraph(store, root, "all")
        found = {
            definition.line: [
                (caller.symbol.qname, edge.resolution.value, path_line(edge.site))
                for caller, edge in callers_of(graph, CallNode(definition, Layer.PYTHON))
            ]
            for definition in (getter, setter)
        }
    assert found == {
        3: [("box.Box.grow", "exact", ("box.py", 11)), ("box.make", "exact", ("box.py", 16))],
        7: [],
    }
