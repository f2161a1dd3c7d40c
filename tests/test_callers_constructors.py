"""`callers` of a Python class, or of its __init__, are the calls that make one: `Conv2d(...)`
runs Conv2d.__init__, and a subclass's `super().__init__(...)` runs its base's. Before, a class
and its __init__ had no callers where the class is made (only calls spelt `__init__` were
looked at, and a class was no call's target), and where calls spelt `__init__` were too many
to examine, the library's own came first, so a base's subclasses could be missed. Every
expected place is read off sample_repo."""

from __future__ import annotations

from explorer.analysis import neighbours, neighbours_of
from tests.conftest import indexed_tree
from tests.places import path_line


def callers(store, root, query):
    report = neighbours_of(store, root, query, "callers")
    return [(n.node.symbol.qname, path_line(n.edge.site)) for n in report.found]


def test_a_class_is_called_where_it_is_made(sample_store, sample_root):
    # mini_app/model.py:13 `self.conv = torch.nn.Conv2d(...)`, mynet/layers.py:10 `return nn.Conv2d(...)`
    made_at = [
        ("mini_app.model.App.__init__", ("mini_app/model.py", 13)),
        ("mynet.layers.conv3x3", ("mynet/layers.py", 10)),
    ]
    assert callers(sample_store, sample_root, "torch.nn.modules.conv.Conv2d") == made_at
    assert callers(sample_store, sample_root, "torch.nn.modules.conv.Conv2d.__init__") == made_at
    # mynet/net.py:12 `nn.ModuleList([BasicBlock(channels) for _ in range(blocks)])`
    assert callers(sample_store, sample_root, "mynet.layers.BasicBlock") == [
        ("mynet.net.Net.__init__", ("mynet/net.py", 12))
    ]


def test_a_base_s_init_is_called_by_its_subclasses_super_init(sample_store, sample_root):
    # torch/nn/modules/conv.py:147 and :213, `super().__init__(` in Conv1d and Conv2d
    assert callers(sample_store, sample_root, "torch.nn.modules.conv._ConvNd.__init__") == [
        ("torch.nn.modules.conv.Conv1d.__init__", ("torch/nn/modules/conv.py", 147)),
        ("torch.nn.modules.conv.Conv2d.__init__", ("torch/nn/modules/conv.py", 213)),
    ]


SHAPES = """\
class Shape:
    def __init__(self, sides):
        self.sides = sides
"""

# library code full of other classes' `super().__init__()`, sorted before tests by path
OTHERS = "\n\n".join(f"class Other{n}(Base):\n    def __init__(self):\n        super().__init__()" for n in range(6))

USES = """\
from lib.shapes import Shape


def test_square():
    return Shape(4)
"""


def test_when_too_many_calls_are_spelt_init_the_constructions_are_examined_first(tmp_path, monkeypatch):
    # Six library classes call super().__init__() of another base; the one construction of
    # Shape is in a test. Examining two candidates, library code first, found none of Shape.
    monkeypatch.setattr(neighbours, "_MAX_CANDIDATE_CALLERS", 2)
    files = {"lib/__init__.py": "", "lib/shapes.py": SHAPES, "lib/others.py": OTHERS, "tests/test_shapes.py": USES}
    with indexed_tree(tmp_path / "tree", files) as (store, root):
        report = neighbours_of(store, root, "lib.shapes.Shape.__init__", "callers")
    assert [(n.node.symbol.qname, path_line(n.edge.site)) for n in report.found] == [
        ("tests.test_shapes.test_square", ("tests/test_shapes.py", 5)),
        ("lib.shapes.Shape", None),  # the class runs its __init__ (the graph's edge, no call written)
    ]
    assert report.truncated


def test_a_class_nobody_makes_has_no_callers(tmp_path):
    with indexed_tree(tmp_path / "tree", {"lib/__init__.py": "", "lib/shapes.py": SHAPES}) as (store, root):
        assert callers(store, root, "lib.shapes.Shape") == []
        assert callers(store, root, "lib.shapes.Shape.__init__") == [("lib.shapes.Shape", None)]
