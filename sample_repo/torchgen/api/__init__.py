"""How schema types become C++ and Python types, one module per API:
types.py for the C++ signatures (dispatcher, native kernels, at:: functions),
python.py for the Python bindings."""
