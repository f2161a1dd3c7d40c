"""The records of a traced run. Names are the static index's qualified names, so a frame of a
run and a node of a static trace are the same thing when their names and locations agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from explorer.model import Layer, Location


class Reach(StrEnum):
    """How a frame was entered from its parent."""

    CALL = "call"  # an explicit call expression
    IMPLICIT = "implicit"  # by the interpreter: attribute access, operators, `with`, iteration
    BINDING = "binding"  # Python into the native library through a torch._C binding
    DISPATCH = "dispatch"  # an operator's dispatcher picked this kernel (the key is in `key`)
    LAUNCH = "launch"  # a CUDA kernel launch
    PROFILED = "profiled"  # a parent/child pair of the PyTorch profiler's operator events
    IMPORT = "import"  # a module body run by an import (shown without what it called)


@dataclass(frozen=True, slots=True)
class RunFrame:
    """One call (or several identical consecutive calls) of a run, with what it called."""

    name: str  # torch.nn.modules.conv.Conv2d.forward, aten::conv2d, at::native::conv2d_symint
    layer: Layer
    path: str | None  # the definition's file, relative to the root when inside it
    line: int | None
    reach: Reach = Reach.CALL
    key: str | None = None  # the dispatch key of a DISPATCH reach (CPU, CUDA, Composite...)
    site: Location | None = None  # where the parent made the call, when known
    calls: int = 1  # identical consecutive calls from one parent, folded into one frame
    children: tuple[RunFrame, ...] = ()
    receiver: str | None = None  # a method's `self` was of this class (module.qualname), where recorded

    def identity(self) -> tuple[str, str | None, int | None, str]:
        """What makes two sibling frames 'the same call' for folding."""
        return (self.name, self.path, self.line, self.reach)


RECORDED_TRACE = "recorded trace"  # RunTrace.runtime of a profiler trace read from a file: nothing ran


@dataclass(frozen=True, slots=True)
class RunTrace:
    """The merged call tree of one run and what is worth knowing about how it was recorded."""

    command: str  # what ran: the -c code or the script with its arguments
    runtime: str  # "bundled" (sample_repo's reference runtime), the interpreter of --python, or RECORDED_TRACE
    device: str  # the backend device the code ran on, where explorer chose it
    root: RunFrame  # the program's top-level code
    exit_code: int
    python_events: int
    native_events: int
    notes: tuple[str, ...] = field(default_factory=tuple)  # caps reached, missing compiler, ...
