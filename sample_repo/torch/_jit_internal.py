"""Helpers shared by eager Python code and the (absent) TorchScript compiler.

The compiler looks functions up in the registries kept here; eager code only
sees thin wrappers.
"""

import weakref
from typing import Any, Callable, Dict, List, Optional

import torch

# fn -> description of the two branches, consulted when scripting a call to fn
boolean_dispatched: "weakref.WeakKeyDictionary[Callable, Dict[str, Any]]" = (
    weakref.WeakKeyDictionary()
)

# qualified name -> list of @_overload declarations
_overloaded_fns: Dict[str, List[Callable]] = {}

# functions whose body should be copied when a wrapper is compiled
_copy_to_script_wrapper_fns: "weakref.WeakSet[Callable]" = weakref.WeakSet()


def is_scripting() -> bool:
    """Always False in eager mode; the compiler special-cases this call."""
    return False


def is_tracing() -> bool:
    return torch._C._get_tracing_state() is not None


def boolean_dispatch(
    arg_name: str,
    arg_index: int,
    default: bool,
    if_true: Callable,
    if_false: Callable,
    module_name: Optional[str],
    func_name: Optional[str],
) -> Callable:
    """Build a function that forwards to ``if_true`` or ``if_false``.

    The choice is made from the boolean argument ``arg_name``, looked up first
    among keyword arguments, then at position ``arg_index``, else ``default``.
    Used where a flag changes the return type (e.g. ``return_indices``).
    """

    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]

        if flag:
            return if_true(*args, **kwargs)
        return if_false(*args, **kwargs)

    # Exactly one branch is expected to carry the documentation.
    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("boolean_dispatch: only one branch may have a docstring")
    doc = if_true.__doc__ if if_true.__doc__ is not None else if_false.__doc__
    if_true.__doc__ = doc
    if_false.__doc__ = doc
    fn.__doc__ = doc

    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
        fn.__qualname__ = func_name

    boolean_dispatched[fn] = {
        "if_true": if_true,
        "if_false": if_false,
        "index": arg_index,
        "default": default,
        "arg_name": arg_name,
    }
    return fn


def _qualified_name(obj: Callable) -> str:
    module = getattr(obj, "__module__", None) or "__main__"
    return f"{module}.{obj.__qualname__}"


def _overload_dummy(*args, **kwargs):
    raise RuntimeError(
        "called an @_overload declaration directly; call the implementation instead"
    )


def _overload(func: Callable) -> Callable:
    """Record ``func`` as a typed declaration of an overloaded function."""
    _overloaded_fns.setdefault(_qualified_name(func), []).append(func)
    return _overload_dummy


def _get_overloads(obj: Callable) -> Optional[List[Callable]]:
    return _overloaded_fns.get(_qualified_name(obj))


def _copy_to_script_wrapper(fn: Callable) -> Callable:
    """Mark ``fn`` (a container dunder such as ``__len__``) for copying."""
    _copy_to_script_wrapper_fns.add(fn)
    return fn


def is_copied_to_script_wrapper(fn: Callable) -> bool:
    return fn in _copy_to_script_wrapper_fns

