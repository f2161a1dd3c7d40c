"""Code generation for the sample tree: reads aten/src/ATen/native/native_functions.yaml
and writes the C++ that wires every operator to its kernels (see gen.py)."""
