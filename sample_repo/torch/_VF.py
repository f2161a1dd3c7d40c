"""Exposes torch._C._VariableFunctions as the module ``torch._VF``.

Going through this module keeps internal callers (rnn, dropout) away from the
public ``torch.*`` names, which user code may have monkey-patched.
"""

import sys
import types

import torch


class VFModule(types.ModuleType):
    """Module object whose attributes are looked up on the native op table."""

    vf: types.ModuleType

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.vf = torch._C._VariableFunctions

    def __getattr__(self, attr: str):
        return getattr(self.vf, attr)


sys.modules[__name__] = VFModule(__name__)
