"""Reverse-mode automatic differentiation.

The graph is recorded by the native side; this package only normalizes
arguments and hands them to the execution engine.
"""

from typing import List, Optional, Sequence, Tuple, Union

import torch
from torch._C import _ImperativeEngine
from torch.autograd.function import Function, FunctionCtx
from torch.autograd.grad_mode import enable_grad, no_grad, set_grad_enabled

__all__ = ["Function", "FunctionCtx", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled"]

_TensorOrTensors = Union[torch.Tensor, Sequence[torch.Tensor]]

_execution_engine = _ImperativeEngine()


def _tensor_or_tensors_to_tuple(
    tensors: Optional[_TensorOrTensors], length: int
) -> Tuple[Optional[torch.Tensor], ...]:
    if tensors is None:
        return (None,) * length
    if isinstance(tensors, torch.Tensor):
        return (tensors,)
    return tuple(tensors)


def _make_grads(
    outputs: Sequence[torch.Tensor],
    grads: Sequence[Optional[torch.Tensor]],
) -> Tuple[Optional[torch.Tensor], ...]:
    """Fill in implicit gradients: ones for scalar outputs, an error otherwise."""
    new_grads: List[Optional[torch.Tensor]] = []
    for out, grad in zip(outputs, grads):
        if grad is not None:
            if tuple(grad.size()) != tuple(out.size()):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output has a shape of "
                    f"{tuple(grad.size())} and output has a shape of {tuple(out.size())}."
                )
            new_grads.append(grad)
        elif out.requires_grad:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            ones = torch.empty(out.size(), dtype=out.dtype, device=out.device)
            new_grads.append(ones.fill_(1.0))
        else:
            new_grads.append(None)
    return tuple(new_grads)


def _engine_run_backward(
    tensors: Tuple[torch.Tensor, ...],
    grad_tensors: Tuple[Optional[torch.Tensor], ...],
    retain_graph: bool,
    create_graph: bool,
    inputs: Tuple[torch.Tensor, ...],
    allow_unreachable: bool,
    accumulate_grad: bool,
):
    return _execution_engine.run_backward(
        tensors,
        grad_tensors,
        retain_graph,
        create_graph,
        inputs,
        allow_unreachable,
        accumulate_grad,
    )


def backward(
    tensors: _TensorOrTensors,
    grad_tensors: Optional[_TensorOrTensors] = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    inputs: Optional[_TensorOrTensors] = None,
) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of graph leaves."""
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")

    outputs = (tensors,) if isinstance(tensors, torch.Tensor) else tuple(tensors)
    input_tuple = (
        ()
        if inputs is None
        else ((inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs))
    )
    grads = _make_grads(outputs, _tensor_or_tensors_to_tuple(grad_tensors, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph

    _engine_run_backward(
        outputs, grads, retain_graph, create_graph, input_tuple, True, True
    )


def grad(
    outputs: _TensorOrTensors,
    inputs: _TensorOrTensors,
    grad_outputs: Optional[_TensorOrTensors] = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> Tuple[Optional[torch.Tensor], ...]:
    """Return d(outputs)/d(inputs) without touching any ``.grad`` field."""
    outputs = (outputs,) if isinstance(outputs, torch.Tensor) else tuple(outputs)
    inputs = (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)
    grads = _make_grads(outputs, _tensor_or_tensors_to_tuple(grad_outputs, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph

    result = _engine_run_backward(
        outputs, grads, retain_graph, create_graph, inputs, allow_unused, False
    )
    if not allow_unused and any(g is None for g in result):
        raise RuntimeError(
            "One of the differentiated Tensors appears to not have been used in "
            "the graph. Set allow_unused=True if this is the desired behavior."
        )
    return result
