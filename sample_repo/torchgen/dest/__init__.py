"""Generators of whole C++ files."""
