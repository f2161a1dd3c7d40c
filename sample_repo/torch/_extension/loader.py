"""Find, build (on demand) and load the native library behind ``torch._C``.

The library is everything C++ in the tree: ATen (aten/), c10 (c10/), the
binding utilities (torch/csrc/), the CUDA sources (.cu, translated to run on
the CPU emulation of the CUDA runtime), the reference implementations of the
vendor libraries (third_party/*/src: cuDNN, cuBLAS, the CUDA runtime,
oneDNN), and the sources torchgen generates from native_functions.yaml. It is
built by torch/utils/cpp_extension.py into a cache folder and reused as long
as no input changes.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from torch.utils import cpp_extension

ROOT = Path(__file__).resolve().parents[2]
LIBRARY_NAME = "_C"
MANIFEST = "generated/manifest.json"

INCLUDE_DIRS = ("aten/src", ".", "third_party/cuda/include", "third_party/mkl-dnn/include")
SOURCE_FOLDERS = ("aten", "c10", "torch/csrc")
VENDOR_FOLDERS = ("third_party/cuda", "third_party/mkl-dnn")
YAML = "aten/src/ATen/native/native_functions.yaml"
CUDA_EMULATION_HEADER = "third_party/cuda/include/cuda_emulation.h"
CUDA_TRANSLATOR = "torch/utils/_cuda_emulation.py"


def _vendor_sources(root: Path) -> List[Path]:
    found: List[Path] = []
    for folder in VENDOR_FOLDERS:
        src = root / folder / "src"
        if src.is_dir():
            found.extend(sorted(p.resolve() for p in src.glob("*.cpp")))
    return found


def _vendors_complete(root: Path) -> bool:
    """Every vendor library has reference sources: link strictly (no undefined symbols)."""
    return all(any((root / folder / "src").glob("*.cpp")) for folder in VENDOR_FOLDERS)


def _cuda_translation(root: Path):
    """translate_cuda_source of torch/utils/_cuda_emulation.py, or None while it is absent."""
    if not (root / CUDA_TRANSLATOR).is_file() or not (root / CUDA_EMULATION_HEADER).is_file():
        return None
    module = importlib.import_module("torch.utils._cuda_emulation")
    return module.translate_cuda_source


def _generate(root: Path):
    def generate(out_dir: Path) -> Sequence[Path]:
        added = str(root) not in sys.path
        if added:
            sys.path.insert(0, str(root))
        try:
            gen = importlib.import_module("torchgen.gen")
            return [Path(p) for p in gen.generate(str(root / "aten/src/ATen"), str(out_dir))]
        finally:
            if added:
                sys.path.remove(str(root))

    return generate


def build_spec(root: Path = ROOT) -> cpp_extension.BuildSpec:
    """What the native library is made of (see the module docstring)."""
    files = cpp_extension.source_tree_files
    sources = files(root, SOURCE_FOLDERS, (".cpp",)) + _vendor_sources(root)
    translate = _cuda_translation(root)
    cuda_sources = files(root, ("aten", "c10"), (".cu",)) if translate is not None else []
    headers = files(root, SOURCE_FOLDERS + tuple(f"{v}/include" for v in VENDOR_FOLDERS), (".h", ".hpp", ".cuh"))
    generator = files(root, ("torchgen",), (".py",))
    recipe = [root / "torch/utils/cpp_extension.py", Path(__file__).resolve()]
    if translate is not None:
        recipe.append(root / CUDA_TRANSLATOR)
    ldflags = ("-Wl,--no-undefined",) if _vendors_complete(root) else ()
    return cpp_extension.BuildSpec(
        name=LIBRARY_NAME,
        root=root,
        sources=tuple(sources),
        cuda_sources=tuple(cuda_sources),
        include_dirs=tuple((root / d).resolve() for d in INCLUDE_DIRS),
        headers=tuple(headers),
        hash_files=tuple([(root / YAML).resolve(), *generator, *(p.resolve() for p in recipe)]),
        ldflags=ldflags,
        generate=_generate(root),
        translate_cuda=translate,
        cuda_include="cuda_emulation.h" if translate is not None else None,
    )


@dataclass
class NativeLibrary:
    path: Path
    lib: ctypes.CDLL
    manifest: Dict[str, Any]


_c_int64_p = ctypes.POINTER(ctypes.c_int64)
_c_float_p = ctypes.POINTER(ctypes.c_float)
_c_void_pp = ctypes.POINTER(ctypes.c_void_p)
_ERR = (ctypes.c_char_p, ctypes.c_int64)

# name -> (restype, argtypes) of the hand-written utilities in torch/csrc.
_PROTOTYPES = {
    "THPModule_isGradEnabled": (ctypes.c_int, ()),
    "THPModule_setGradEnabled": (None, (ctypes.c_int,)),
    "THPModule_userEnabledCuDNN": (ctypes.c_int, ()),
    "THPModule_setUserEnabledCuDNN": (None, (ctypes.c_int,)),
    "THPModule_benchmarkCuDNN": (ctypes.c_int, ()),
    "THPModule_setBenchmarkCuDNN": (None, (ctypes.c_int,)),
    "THPModule_deterministicCuDNN": (ctypes.c_int, ()),
    "THPModule_setDeterministicCuDNN": (None, (ctypes.c_int,)),
    "THPModule_allowTF32CuDNN": (ctypes.c_int, ()),
    "THPModule_setAllowTF32CuDNN": (None, (ctypes.c_int,)),
    "THPModule_userEnabledMkldnn": (ctypes.c_int, ()),
    "THPModule_setUserEnabledMkldnn": (None, (ctypes.c_int,)),
    "THPModule_hasCuDNN": (ctypes.c_int, ()),
    "THPModule_hasMKLDNN": (ctypes.c_int, ()),
    "THPModule_cudnnVersion": (ctypes.c_int, (_c_int64_p, *_ERR)),
    "THPModule_getDeviceCount": (ctypes.c_int64, ()),
    "THPModule_manualSeed": (None, (ctypes.c_uint64,)),
    "THPModule_initialSeed": (ctypes.c_uint64, ()),
    "THPTensor_free": (None, (ctypes.c_void_p,)),
    "THPTensor_alias": (ctypes.c_void_p, (ctypes.c_void_p,)),
    "THPTensor_unsafeGetTensorImpl": (ctypes.c_void_p, (ctypes.c_void_p,)),
    "THPTensor_dim": (ctypes.c_int64, (ctypes.c_void_p,)),
    "THPTensor_sizes": (None, (ctypes.c_void_p, _c_int64_p)),
    "THPTensor_strides": (None, (ctypes.c_void_p, _c_int64_p)),
    "THPTensor_storage_offset": (ctypes.c_int64, (ctypes.c_void_p,)),
    "THPTensor_numel": (ctypes.c_int64, (ctypes.c_void_p,)),
    "THPTensor_device": (None, (ctypes.c_void_p, _c_int64_p, _c_int64_p)),
    "THPTensor_dtype": (ctypes.c_int64, (ctypes.c_void_p,)),
    "THPTensor_data_ptr": (ctypes.c_void_p, (ctypes.c_void_p,)),
    "THPTensor_is_contiguous": (ctypes.c_int, (ctypes.c_void_p,)),
    "THPTensor_is_alias_of": (ctypes.c_int, (ctypes.c_void_p, ctypes.c_void_p)),
    "THPTensor_new_empty": (
        ctypes.c_int,
        (_c_int64_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, _c_void_pp, *_ERR),
    ),
    "THPTensor_new_full": (
        ctypes.c_int,
        (_c_int64_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_double,
         _c_void_pp, *_ERR),
    ),
    "THPTensor_as_strided": (
        ctypes.c_int,
        (ctypes.c_void_p, _c_int64_p, _c_int64_p, ctypes.c_int64, ctypes.c_int64, _c_void_pp, *_ERR),
    ),
    "THPTensor_contiguous": (ctypes.c_int, (ctypes.c_void_p, _c_void_pp, *_ERR)),
    "THPTensor_clone": (ctypes.c_int, (ctypes.c_void_p, _c_void_pp, *_ERR)),
    "THPTensor_reshape": (ctypes.c_int, (ctypes.c_void_p, _c_int64_p, ctypes.c_int64, _c_void_pp, *_ERR)),
    "THPTensor_copy_": (ctypes.c_int, (ctypes.c_void_p, ctypes.c_void_p, *_ERR)),
    "THPTensor_to": (
        ctypes.c_int,
        (ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, _c_void_pp, *_ERR),
    ),
    "THPTensor_fill_": (ctypes.c_int, (ctypes.c_void_p, ctypes.c_double, *_ERR)),
    "THPTensor_uniform_": (ctypes.c_int, (ctypes.c_void_p, ctypes.c_double, ctypes.c_double, *_ERR)),
    "THPTensor_normal_": (ctypes.c_int, (ctypes.c_void_p, ctypes.c_double, ctypes.c_double, *_ERR)),
    "THPTensor_read": (ctypes.c_int, (ctypes.c_void_p, _c_float_p, ctypes.c_int64, *_ERR)),
    "THPTensor_write": (ctypes.c_int, (ctypes.c_void_p, _c_float_p, ctypes.c_int64, *_ERR)),
}


def load(root: Path = ROOT, build_root: Optional[Path] = None) -> NativeLibrary:
    """Build the library if needed, load it, and read its operator manifest."""
    spec = build_spec(root)
    path = cpp_extension.load_library(spec, build_root, required=(MANIFEST,))
    lib = ctypes.CDLL(str(path))
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = list(argtypes)
    manifest = json.loads((path.parent / MANIFEST).read_text(encoding="utf-8"))
    return NativeLibrary(path, lib, manifest)
