"""Builds mini_ops and its native module mini_ops._C (pybind11 bindings, operators and
CUDA kernels), the way a CUDA extension package beside PyTorch is built. The package is this
folder itself, so that inside the bundled tree it is imported as `mini_ops`."""

from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension

setup(
    name="mini_ops",
    version="0.1.0",
    packages=["mini_ops"],
    package_dir={"mini_ops": "."},
    ext_modules=[
        CUDAExtension(
            "mini_ops._C",
            sources=[
                "csrc/bindings.cpp",
                "csrc/ops.cpp",
                "csrc/legacy.cpp",
                "csrc/scale.cpp",
                "csrc/kernels.cu",
            ],
        )
    ],
)
