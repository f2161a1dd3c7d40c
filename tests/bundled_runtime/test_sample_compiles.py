"""The bundled tree is real code: its C++ compiles (syntax) and its Python is valid."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from explorer.folders import SAMPLE_ROOT

CPP_SOURCES = sorted(p for p in SAMPLE_ROOT.rglob("*.cpp") if "third_party" not in p.parts)
INCLUDES = ["aten/src", ".", "third_party/cuda/include", "third_party/mkl-dnn/include", "torch/csrc/api/include"]


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler on this machine")
def test_every_cpp_file_passes_a_cxx17_syntax_check():
    assert len(CPP_SOURCES) >= 40
    failures = []
    for source in CPP_SOURCES:
        command = [
            "c++",
            "-std=c++17",
            "-fsyntax-only",
            *(f"-I{SAMPLE_ROOT / include}" for include in INCLUDES),
            str(source),
        ]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            failures.append(f"{source.relative_to(SAMPLE_ROOT)}:\n{result.stderr}")
    assert failures == []


def test_every_python_file_compiles_without_running_it():
    sources = sorted(SAMPLE_ROOT.rglob("*.py")) + sorted(SAMPLE_ROOT.rglob("*.pyi"))
    assert len(sources) >= 30
    for source in sources:
        compile(source.read_text(encoding="utf-8"), str(source), "exec")  # compiles; never executes


def test_the_tree_mirrors_pytorch_layout():
    expected = [
        "torch/__init__.py",
        "torch/_VF.py",
        "torch/_tensor.py",
        "torch/_jit_internal.py",
        "torch/_C/_VariableFunctions.pyi",
        "torch/_C/_nn.pyi",
        "torch/nn/functional.py",
        "torch/nn/modules/module.py",
        "torch/nn/modules/conv.py",
        "torch/nn/modules/rnn.py",
        "aten/src/ATen/native/native_functions.yaml",
        "tools/autograd/derivatives.yaml",
        "aten/src/ATen/native/Convolution.cpp",
        "aten/src/ATen/native/cudnn/Conv_v7.cpp",
        "aten/src/ATen/native/cuda/Blas.cpp",
        "aten/src/ATen/native/cpu/Activation.cpp",
        "third_party/cuda/include/cudnn.h",
        "third_party/cuda/include/cublas_v2.h",
    ]
    assert [path for path in expected if not (SAMPLE_ROOT / path).is_file()] == []
