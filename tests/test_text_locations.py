"""How text writes a place (render/text.py, render/places.py): another tree's files by the
tree's name, and never a line 0 where no line is known."""

from __future__ import annotations

from rich.console import Console

from explorer.model import CallEdge, CallNode, EdgeKind, Language, Layer, Location, Symbol, SymbolKind, Tree, TreeKind
from explorer.render.places import name_trees, shown_path
from explorer.render.text import hop_text, site_text


def test_a_site_without_a_line_is_its_file_alone():
    assert site_text(Location("torch/nn/modules/module.py", 198)) == "torch/nn/modules/module.py:198"
    assert site_text(Location("torch/nn/modules/module.py", 0)) == "torch/nn/modules/module.py"
    helper = Symbol("pkg.helper", "helper", SymbolKind.FUNCTION, Language.PYTHON, "pkg/mod.py", 3, 4)
    text = hop_text(
        CallNode(helper, Layer.PYTHON),
        CallEdge(CallNode(helper, Layer.PYTHON), EdgeKind.PASSED, site=Location("pkg/mod.py", 0)),
    )
    console = Console(width=200, color_system=None)
    with console.capture() as captured:
        console.print(text)
    assert captured.get() == "python  pkg.helper  pkg/mod.py:3  ← passed, at pkg/mod.py\n"


def test_another_trees_files_are_written_with_its_name_the_deepest_root_winning():
    name_trees(
        [
            Tree("project", "/home/me/app", TreeKind.PROJECT),
            Tree("pytorch", "/src/pytorch", TreeKind.SOURCE),
            Tree("torch 2.13.0+cpu", "/env/site-packages", TreeKind.INSTALLED),
            Tree("vendored", "/src/pytorch/third_party/lib", TreeKind.SOURCE),
        ]
    )
    try:
        assert shown_path("app/model.py") == "app/model.py"  # the project's: relative already
        assert (
            shown_path("/src/pytorch/aten/src/ATen/native/Convolution.cpp")
            == "pytorch:aten/src/ATen/native/Convolution.cpp"
        )
        assert shown_path("/env/site-packages/torch/nn/functional.py") == "torch-2.13.0+cpu:torch/nn/functional.py"
        assert shown_path("/src/pytorch/third_party/lib/a.h") == "vendored:a.h"
        assert shown_path("/src/pytorchx/a.py") == "/src/pytorchx/a.py"  # a folder beside it is no part of it
    finally:
        name_trees([])
