"""The command line as a user runs it: output, exit codes, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.command_line import invoke
from tests.conftest import write_tree


def run(*args: str, env: dict[str, str] | None = None):
    result = invoke(list(args), env=env)
    assert "Traceback" not in result.output
    return result


def rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_index_reports_counts_and_where_the_index_is(sample_root):
    result = run("index")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Indexed 209 files (")
    assert lines[1] == "Skipped 0 files"
    # sample_repo/third_party holds a vendored library, as PyTorch's does
    assert (
        lines[2]
        == "Left out by rule: 1 folder (1 vendored third-party code (--include-third-party indexes it)) (--verbose lists them)"
    )
    assert lines[3].startswith("Index: ") and lines[3].endswith(".sqlite")


def test_index_json_counts(sample_root):
    report = json.loads(run("index", "--json").stdout)
    assert (report["files"], report["parsed_files"], report["skipped"]) == (209, 209, [])
    assert (report["symbols"], report["calls"]) == (2616, 5621)


def test_search_prints_kind_symbol_and_location():
    result = run("search", "conv2d", "--limit", "3")
    assert result.exit_code == 0
    assert rows(result.stdout) == [
        ["kind", "symbol", "location"],
        ["operator", "aten::conv2d", "aten/src/ATen/native/native_functions.yaml:74"],
        ["operator", "aten::conv2d.padding", "aten/src/ATen/native/native_functions.yaml:78"],
        ["struct", "at::_ops::conv2d", "aten/src/ATen/Operators.h:19"],
    ]


def test_search_json_is_a_list_of_symbols():
    found = json.loads(run("search", "Conv2d", "-n", "1", "--json").stdout)
    assert found == [
        {
            "symbol": "torch.nn.modules.conv.Conv2d",
            "name": "Conv2d",
            "kind": "class",
            "lang": "python",
            "file": "torch/nn/modules/conv.py",
            "line": 187,
            "end_line": 244,
            "signature": "class Conv2d(_ConvNd)",
            "match": "exact_case",
        }
    ]


def test_search_with_no_match_says_so():
    result = run("search", "zzqqxx")
    assert (result.exit_code, result.stdout) == (0, "no symbol matches 'zzqqxx'\n")


@pytest.mark.parametrize("name", ["torch.nn.Conv2d", "nn.Conv2d", "torch.nn.modules.conv.Conv2d", "Conv2d"])
def test_show_resolves_public_names_to_the_class(name):
    result = run("show", name)
    assert result.exit_code == 0
    assert (
        "class torch.nn.modules.conv.Conv2d\n  defined at torch/nn/modules/conv.py:187-244 (python)\n" in result.stdout
    )


def test_show_explains_the_hops_of_a_re_export():
    result = run("show", "torch.nn.Conv2d")
    assert result.stdout.splitlines()[:2] == [
        "torch.nn.modules.Conv2d -> torch.nn.modules.conv.Conv2d (import)",
        "torch.nn.Conv2d -> torch.nn.modules.conv.Conv2d (star import from torch.nn.modules)",
    ]


def test_show_an_alias_says_what_it_resolves_to():
    result = run("show", "F.conv2d")
    assert result.exit_code == 0
    out = result.stdout
    assert "F -> torch.nn.functional (import alias used in the tree)" in out
    assert "alias torch.nn.functional.conv2d\n  defined at torch/nn/functional.py:37-56 (python)\n" in out
    assert "  conv2d = _add_docstr(torch.conv2d, ...)\n  refers to torch.conv2d\n" in out
    assert "    -> operator aten::conv2d  aten/src/ATen/native/native_functions.yaml:74\n" in out
    assert "    -> operator aten::conv2d.padding  aten/src/ATen/native/native_functions.yaml:78\n" in out


def test_show_an_operator_prints_its_dispatch_table():
    out = run("show", "aten::conv2d").stdout
    assert [
        "CompositeImplicitAutograd",
        "at::native::conv2d_symint",
        "aten/src/ATen/native/Convolution.cpp:173",
    ] in rows(out)
    structured = rows(run("show", "addmm").stdout)
    assert [
        "CPU",
        "(via",
        "aten::addmm.out)",
        "at::native::addmm_out_cpu",
        "aten/src/ATen/native/LinearAlgebra.cpp:104",
    ] in structured
    assert [
        "CUDA",
        "(via",
        "aten::addmm.out)",
        "at::native::addmm_out_cuda",
        "aten/src/ATen/native/cuda/Blas.cpp:65",
    ] in structured


def test_show_says_how_many_lines_of_the_definition_it_left_out():
    # module.py:189 `def _call_impl(...)` to :231 `return result`: 15 lines shown, 28 left
    shown = run("show", "torch.nn.modules.module.Module._call_impl")
    assert shown.exit_code == 0
    box = shown.stdout.splitlines()
    assert "   203 " in box[-2] and "   204 " not in shown.stdout
    assert box[-1].startswith("╰─ 28 more lines to line 231; --lines N shows more ─")
    whole = run("show", "torch.nn.modules.module.Module._call_impl", "--lines", "43")
    assert "   231         return result" in whole.stdout and "more line" not in whole.stdout
    listed = json.loads(run("show", "torch.nn.modules.module.Module._call_impl", "--json", "--lines", "40").stdout)
    assert listed["definitions"][0]["snippet_lines_left_out"] == 3
    assert (
        run("show", "torch.nn.modules.module.Module._call_impl", "--lines", "0").stderr
        == "error: --lines must be at least 1\n"
    )


def test_show_json_for_an_operator_overload():
    shown = json.loads(run("show", "conv2d.padding", "--json").stdout)
    assert shown["via"] == ["conv2d.padding -> aten::conv2d.padding"]
    [definition] = shown["definitions"]
    assert definition["symbol"] == "aten::conv2d.padding"
    assert (definition["file"], definition["line"]) == ("aten/src/ATen/native/native_functions.yaml", 78)
    assert definition["operator"] == {
        "variants": ["function"],
        "python_module": None,
        "structured": False,
        "structured_delegate": None,
        "autogen": [],
    }
    assert definition["dispatch"] == [
        {
            "key": "CompositeImplicitAutograd",
            "kernel": "at::native::conv2d_padding_symint",
            "line": 81,
            "via": None,
            "definitions": [{"file": "aten/src/ATen/native/Convolution.cpp", "line": 188}],
        }
    ]


def test_show_lists_every_definition_of_a_name_defined_on_both_sides_of_an_if():
    shown = json.loads(run("show", "at::native::cudnn_convolution", "--json").stdout)
    assert [(d["file"], d["line"]) for d in shown["definitions"]] == [
        ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 13),
        ("aten/src/ATen/native/cudnn/ConvShared.cpp", 65),
    ]


def test_show_a_vendor_api_counts_its_call_sites():
    result = run("show", "cudnnConvolutionForward")
    assert result.stdout == (
        "external cudnnConvolutionForward\n"
        "  cuDNN API; 1 call site(s), first at aten/src/ATen/native/cudnn/Conv_v7.cpp:110\n"
    )


def test_unknown_symbol_is_one_line_with_the_closest_names():
    result = run("show", "conv2dd")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: unknown symbol: conv2dd; closest: at::conv2d, aten::conv2d, ")


def test_a_slip_in_the_first_letters_is_offered_its_name_in_the_same_module_first():
    # cnov2d: the second letter slipped; functional.py:37 defines conv2d in torch.nn.functional
    result = run("show", "torch.nn.functional.cnov2d")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: unknown symbol: torch.nn.functional.cnov2d; closest: torch.nn.functional.conv2d, "
    )


def test_missing_root_is_a_usage_error(tmp_path: Path):
    result = run("search", "conv2d", "--root", str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert result.stderr == f"error: root folder not found: {tmp_path / 'nowhere'}\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["search", "x", "--limit", "0"], "error: --limit must be at least 1\n"),
        (["search", "x", "--kind", "gadget"], "error: unknown kind 'gadget'; one of: "),
        (
            ["search", "x", "--lang", "rust"],
            "error: unknown language 'rust'; one of: python, cpp, cuda, yaml, vendor\n",
        ),
        (["index", "--jobs", "0"], "error: --jobs must be at least 1\n"),
    ],
)
def test_bad_options_are_usage_errors(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message)


def test_root_comes_from_the_environment_when_not_given(tmp_path: Path):
    tree = write_tree(tmp_path / "tree", {"pkg/__init__.py": "def hello():\n    pass\n"})
    result = run("search", "hello", "--json", env={"EXPLORER_ROOT": str(tree)})
    assert [(h["symbol"], h["file"], h["line"]) for h in json.loads(result.stdout)] == [
        ("pkg.hello", "pkg/__init__.py", 1)
    ]


def test_index_verbose_lists_skipped_files(tmp_path: Path):
    tree = write_tree(tmp_path / "tree", {"ok.py": "x = 1\n", "bad.py": b"\xff\xfe\x00\x00", "broken.py": "def f(:\n"})
    result = run("index", "--root", str(tree), "--verbose")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[1] == "Skipped 1 file; 1 problem in indexed files"
    assert lines[2] == "  skipped bad.py: binary content"
    assert lines[3].startswith("  problem broken.py: syntax error at line 1: ")


def test_an_index_that_cannot_be_written_is_a_one_line_error(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run("search", "conv2d", "--index", str(blocker / "index.sqlite"))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot write the index at {blocker / 'index.sqlite'}: ")
    assert result.stderr.count("\n") == 1


def test_a_bare_name_shows_every_definition_across_languages():
    shown = json.loads(run("show", "relu", "--json").stdout)
    assert [(d["symbol"], d["kind"]) for d in shown["definitions"]] == [
        ("at::relu", "function"),
        ("at::_ops::relu", "struct"),
        ("at::Tensor::relu", "method"),
        ("at::native::relu", "function"),
        ("aten::relu", "operator"),
        ("torch._C._VariableFunctions.relu", "function"),
        ("torch._C.TensorBase.relu", "method"),
        ("torch.nn.functional.relu", "function"),
    ]


@pytest.mark.parametrize("command", ["show", "search"])
def test_an_empty_name_is_a_usage_error(command):
    result = run(command, "  ")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: give a ")


def test_show_an_operator_lists_its_autograd_formulas():
    out = run("show", "aten::convolution").stdout
    assert "  autograd formulas at tools/autograd/derivatives.yaml:16\n" in out
    assert "    input, weight, bias: grad.defined() ? convolution_backward_symint(grad, input, weight," in out
    shown = json.loads(run("show", "aten::relu", "--json").stdout)
    assert [(d["file"], d["line"]) for d in shown["definitions"][0]["derivatives"]] == [
        ("tools/autograd/derivatives.yaml", 34)
    ]


def test_trace_to_prints_each_path_with_a_location_per_hop():
    result = run("trace", "torch.nn.ReLU", "--to", "relu_cuda_kernel")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "2 paths from torch.nn.modules.activation.ReLU to relu_cuda_kernel (backend cuda)"
    assert lines[2] == "path 1: 11 hops"
    assert rows(lines[3])[0] == ["0", "python", "torch.nn.modules.activation.ReLU", "torch/nn/modules/activation.py:13"]
    assert rows(lines[14])[0][:4] == [
        "11",
        "cuda",
        "at::native::relu_cuda_kernel",
        "aten/src/ATen/native/cuda/Activation.cu:11",
    ]
    assert lines[14].endswith("← launch, at aten/src/ATen/native/cuda/Activation.cu:27")


def test_trace_json_is_byte_identical_twice():
    first, second = (run("trace", "torch.nn.Linear", "--to", "cublasSgemm", "--json") for _ in range(2))
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    out = json.loads(first.stdout)
    assert out["paths"][0][-1]["symbol"] == "cublasSgemm" and out["paths"][0][-1]["layer"] == "vendor"


def test_trace_with_no_path_says_how_far_it_got_and_exits_1():
    result = run("trace", "torch.nn.Dropout", "--to", "cudnnConvolutionForward")
    assert result.exit_code == 1
    assert rows(result.stdout) == [
        [
            "no",
            "path",
            "from",
            "torch.nn.modules.dropout.Dropout",
            "to",
            "cudnnConvolutionForward",
            "(backend",
            "cuda)",
        ],
        ["deepest", "definitions", "reached:"],
        # EmptyTensor.cpp:18 make_shared<c10::TensorImpl>(...) runs the constructor (TensorImpl.cpp:7),
        # which calls refresh (18)
        ["cpp", "c10::TensorImpl::refresh", "c10/core/TensorImpl.cpp:48"],
    ]


def test_a_to_that_names_nothing_says_so_with_the_closest_names_and_walks_nothing():
    result = run("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForwardd")
    assert (result.exit_code, result.stdout) == (
        1,
        "no definition in the trees is named like --to cudnnConvolutionForwardd; "
        "closest: cudnnConvolutionForward, at::native::cudnn_convolution_forward_out\n",
    )
    listed = json.loads(run("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForwardd", "--json").stdout)
    assert (listed["paths"], listed["target_closest"]) == (
        [],
        ["cudnnConvolutionForward", "at::native::cudnn_convolution_forward_out"],
    )
    drawn = run("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForwardd", "-f", "dot")
    assert drawn.exit_code == 1 and drawn.stderr.endswith(
        "closest: cudnnConvolutionForward, at::native::cudnn_convolution_forward_out; nothing drawn\n"
    )
    # part of a name some definition has is still a target: cudnnConvolutionForward holds it
    assert run("trace", "torch.nn.Conv2d", "--to", "cudnnConvolution").stdout.startswith(
        "2 paths from torch.nn.modules.conv.Conv2d to cudnnConvolution "
    )


@pytest.mark.parametrize(
    "args, code, message",
    [
        (
            ["trace", "torch.nn.Conv2dd"],
            1,
            "error: unknown symbol: torch.nn.Conv2dd; closest: torch.nn.modules.conv.Conv2d",
        ),
        (["trace", "torch.nn.Conv2d", "--to", "("], 2, "error: --to '(' is not a regular expression: "),
        (["trace", "torch.nn.Conv2d", "--backend", "tpu"], 2, "error: unknown backend 'tpu'; one of: cuda, cpu, all\n"),
    ],
)
def test_trace_bad_input_is_one_line(args, code, message):
    result = run(*args)
    assert result.exit_code == code
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1


def test_callgraph_prints_json_and_rejects_other_formats(tmp_path: Path):
    tree = write_tree(tmp_path / "tree", {"m.py": "def f():\n    g()\n\ndef g():\n    print(1)\n"})
    result = run("callgraph", "--root", str(tree))
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"m": [], "m.f": ["m.g"], "m.g": ["<builtin>.print"]}
    bad = run("callgraph", "--root", str(tree), "--format", "dot")
    assert bad.exit_code == 2 and bad.stderr == "error: unknown format 'dot'; one of: json\n"


def test_callers_and_callees_print_one_line_per_definition():
    result = run("callers", "aten::cudnn_convolution")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert rows(lines[0]) == [["yaml", "aten::cudnn_convolution", "aten/src/ATen/native/native_functions.yaml:88"]]
    # the generated inline at::cudnn_convolution (Functions.h:73) calls the operator at line 76
    assert rows(lines[1])[0][:5] == ["called", "by", "cpp", "at::cudnn_convolution", "aten/src/ATen/Functions.h:73"]
    assert rows(lines[2])[0][:5] == [
        "called",
        "by",
        "cpp",
        "at::native::_convolution",
        "aten/src/ATen/native/Convolution.cpp:228",
    ]
    assert len(lines) == 4
    callees = json.loads(run("callees", "aten::cudnn_convolution", "--json").stdout)
    assert [(n["depth"], n["symbol"], n["file"], n["line"], n["edge"]) for n in callees] == [
        (1, "at::native::cudnn_convolution", "aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 13, "dispatch:CUDA"),
        (1, "at::native::cudnn_convolution", "aten/src/ATen/native/cudnn/ConvShared.cpp", 65, "dispatch:CUDA"),
    ]


def test_a_vendor_call_written_from_the_global_namespace_is_the_librarys_api(tmp_path: Path):
    """`::dnnl::reorder` is oneDNN's `dnnl::reorder` (vendors.yaml names that library's API
    qualified), and `::cudnnCreate` is cuDNN's `cudnnCreate`."""
    tree = write_tree(
        tmp_path / "tree",
        {
            "ops/run.cpp": (
                "void run(float* a, float* b) {\n    ::dnnl::reorder(a, b);\n    ::cudnnCreate(nullptr);\n}\n"
            )
        },
    )
    result = run(
        "callees",
        "run",
        "--json",
        "--root",
        str(tree),
        "--index",
        str(tmp_path / "index.sqlite"),
        "--python-env",
        "none",
    )
    assert result.exit_code == 0, result.output
    assert sorted((found["symbol"], found["kind"], found["layer"]) for found in json.loads(result.stdout)) == [
        ("cudnnCreate", "external", "vendor"),
        ("dnnl::reorder", "external", "vendor"),
    ]
