"""Module: the base class of every layer and model."""

import itertools
from collections import OrderedDict
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple, Union

import torch
from torch import Tensor, device, dtype
from torch.nn.parameter import Parameter
from torch.utils.hooks import RemovableHandle

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "Module",
]

# Hooks that apply to every module, on top of the per-instance ones.
_global_forward_pre_hooks: Dict[int, Callable] = OrderedDict()
_global_forward_hooks: Dict[int, Callable] = OrderedDict()


def _addindent(s_: str, num_spaces: int) -> str:
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    rest = [(num_spaces * " ") + line for line in lines]
    return first + "\n" + "\n".join(rest)


def register_module_forward_pre_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Run ``hook(module, args)`` before the forward of every module."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after the forward of every module."""
    handle = RemovableHandle(_global_forward_hooks)
    _global_forward_hooks[handle.id] = hook
    return handle


def _forward_unimplemented(self, *input: Any) -> None:
    """Placeholder for ``forward``; subclasses must override it."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


class Module:
    """Base class for all neural network modules.

    Subclasses assign parameters and child modules as attributes in
    ``__init__`` and implement ``forward``. Call the module, not ``forward``,
    so that registered hooks run.
    """

    dump_patches: bool = False

    training: bool
    _parameters: Dict[str, Optional[Parameter]]
    _buffers: Dict[str, Optional[Tensor]]
    _non_persistent_buffers_set: Set[str]
    _modules: Dict[str, Optional["Module"]]
    _forward_hooks: Dict[int, Callable]
    _forward_hooks_with_kwargs: Dict[int, bool]
    _forward_pre_hooks: Dict[int, Callable]
    _forward_pre_hooks_with_kwargs: Dict[int, bool]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments: "
                f"{args!r}, {kwargs!r}"
            )
        # Bypass our own __setattr__, which relies on these dicts existing.
        super().__setattr__("training", True)
        super().__setattr__("_parameters", OrderedDict())
        super().__setattr__("_buffers", OrderedDict())
        super().__setattr__("_non_persistent_buffers_set", set())
        super().__setattr__("_modules", OrderedDict())
        super().__setattr__("_forward_hooks", OrderedDict())
        super().__setattr__("_forward_hooks_with_kwargs", OrderedDict())
        super().__setattr__("_forward_pre_hooks", OrderedDict())
        super().__setattr__("_forward_pre_hooks_with_kwargs", OrderedDict())

    forward: Callable[..., Any] = _forward_unimplemented

    # ------------------------------------------------------------------ registration

    def _check_member_name(self, kind: str, name: str, registry: Dict[str, Any]) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f'{kind} name can\'t contain "." or be empty, got: {name!r}')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Add non-parameter state (e.g. running statistics) to the module."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_member_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, torch.Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Add a parameter under ``name``; ``None`` reserves the slot."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_member_name("parameter", name, self._parameters)

        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        elif param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                f"parameters must be created explicitly."
            )
        else:
            self._parameters[name] = param

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        """Register ``module`` as a child reachable as ``self.<name>``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_member_name("module", name, self._modules)
        self._modules[name] = module

    register_module = add_module

    def register_forward_pre_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
    ) -> RemovableHandle:
        """Run ``hook(module, args)`` before ``forward``; it may replace ``args``."""
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
        return handle

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
    ) -> RemovableHandle:
        """Run ``hook(module, args, output)`` after ``forward``; it may replace the output."""
        handle = RemovableHandle(
            self._forward_hooks, extra_dict=self._forward_hooks_with_kwargs
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
        return handle

    # ------------------------------------------------------------------ calling

    def _wrapped_call_impl(self, *args, **kwargs):
        return self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        # Fast path: nothing to run around forward.
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or _global_forward_hooks
            or _global_forward_pre_hooks
        ):
            return forward_call(*args, **kwargs)

        for hook_id, hook in itertools.chain(
            _global_forward_pre_hooks.items(), self._forward_pre_hooks.items()
        ):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs)
                if hook_result is not None:
                    if not (isinstance(hook_result, tuple) and len(hook_result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of "
                            f"(new_args, new_kwargs), but got {hook_result}."
                        )
                    args, kwargs = hook_result
            else:
                hook_result = hook(self, args)
                if hook_result is not None:
                    if not isinstance(hook_result, tuple):
                        hook_result = (hook_result,)
                    args = hook_result

        result = forward_call(*args, **kwargs)

        for hook_id, hook in itertools.chain(
            _global_forward_hooks.items(), self._forward_hooks.items()
        ):
            if hook_id in self._forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result

        return result

    __call__: Callable[..., Any] = _wrapped_call_impl

    # ------------------------------------------------------------------ attributes

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: look in the registries.
        if "_parameters" in self.__dict__:
            _parameters = self.__dict__["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in self.__dict__:
            _buffers = self.__dict__["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Union[Tensor, "Module", Any]) -> None:
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{type(value).__name__}' as child module '{name}' "
                        "(torch.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, torch.Tensor):
                        raise TypeError(
                            f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                            "(torch.Tensor or None expected)"
                        )
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    # ------------------------------------------------------------------ traversal

    def _named_members(self, get_members_fn, prefix: str = "", recurse: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Yield the parameters of this module (and, by default, its children)."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[Tuple[str, Parameter]]:
        """Yield ``(dotted_name, parameter)`` pairs, each parameter once."""
        yield from self._named_members(
            lambda module: module._parameters.items(), prefix=prefix, recurse=recurse
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _name, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[Tuple[str, Tensor]]:
        yield from self._named_members(
            lambda module: module._buffers.items(), prefix=prefix, recurse=recurse
        )

    def children(self) -> Iterator["Module"]:
        for _name, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[Tuple[str, "Module"]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def named_modules(self, memo: Optional[Set["Module"]] = None, prefix: str = ""):
        if memo is None:
            memo = set()
        if self in memo:
            return
        memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix)

    # ------------------------------------------------------------------ modes & devices

    def train(self, mode: bool = True) -> "Module":
        """Switch this module and its children to training (or eval) mode."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        """Same as ``self.train(False)``."""
        return self.train(False)

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every submodule (children first), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        if recurse:
            for module in self.children():
                module._apply(fn)

        for key, param in self._parameters.items():
            if param is None:
                continue
            with torch.no_grad():
                param_applied = fn(param)
            self._parameters[key] = Parameter(param_applied, param.requires_grad)

        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)

        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Move and/or cast parameters and buffers.

        Accepts ``to(device)``, ``to(dtype)``, ``to(device, dtype)`` and
        ``to(tensor)`` like ``Tensor.to``; dtype casts only touch floating
        point tensors.
        """
        device, dtype, non_blocking = _parse_to(*args, **kwargs)

        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            return t.to(
                device,
                dtype if t.is_floating_point() else None,
                non_blocking,
            )

        return self._apply(convert)

    # ------------------------------------------------------------------ repr

    def extra_repr(self) -> str:
        """Layer-specific text shown between the parentheses of ``repr``."""
        return ""

    def __repr__(self) -> str:
        extra_lines: List[str] = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines

        main_str = type(self).__name__ + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    # ------------------------------------------------------------------ device shortcuts

    def cuda(self, device: Optional[Union[int, device]] = None) -> "Module":
        """Move all parameters and buffers to a CUDA device (the current one by default)."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> "Module":
        """Move all parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())


def _parse_to(*args: Any, **kwargs: Any) -> Tuple[Optional[device], Optional[dtype], bool]:
    """Split ``Module.to``'s flexible arguments into (device, dtype, non_blocking)."""
    dev: Optional[device] = kwargs.pop("device", None)
    dt: Optional[dtype] = kwargs.pop("dtype", None)
    non_blocking: bool = kwargs.pop("non_blocking", False)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")

    for arg in args:
        if isinstance(arg, torch.Tensor):
            dev, dt = arg.device, arg.dtype
        elif isinstance(arg, dtype):
            dt = arg
        elif isinstance(arg, bool):
            non_blocking = arg
        elif isinstance(arg, (device, str, int)):
            dev = arg if isinstance(arg, device) else device(arg)
        else:
            raise TypeError(f"to() received an invalid argument of type {type(arg).__name__}")
    return dev, dt, non_blocking
