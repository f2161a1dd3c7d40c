"""Runs a program on real PyTorch with sys.setprofile and the PyTorch profiler both on.

Executed by the interpreter the user named with --python, which has torch but maybe not
explorer: this file imports only the standard library, and torch only once the program has
imported it. Usage: python profile_bootstrap.py CONFIG.json. The config is bootstrap.py's
(program, "events" file, "roots", "max_events") plus "profile", a second output file.

Two recordings are made, on two clocks:
1. Python: bootstrap.py's Recorder (loaded from this file's folder, its code reused as is)
   records calls and returns of code under the roots (the torch package and the program),
   with time.perf_counter_ns(). This file adds 'c_call'/'c_return' of torch's builtins
   (kinds C_CALL, C_RETURN; index: into "builtins" of the profile file): in real PyTorch
   `torch.conv2d` or `Tensor.add` is a C function and leaves no Python frame, yet it is the
   binding through which the operators below it were reached.
2. Operators: the PyTorch profiler's events (CPU operators; CUDA kernels when CUDA is
   available), written raw: name, overload, kind, start and end, thread, correlation ids.

How operators find their Python caller (the parent, profiler.py, does the nesting): an
operator runs inside the builtin call that reached it, so its interval lies inside that
call's c_call..c_return interval, once both are on one clock. The profiler stamps events
with the wall clock (CLOCK_REALTIME: on torch 2.13 the trace starts within a millisecond of
time.time_ns() and nowhere near perf_counter_ns(), which counts from boot), while the
Recorder uses CLOCK_MONOTONIC. Their offset is measured here when the profiler starts and
when it stops, each time as the (perf, wall) pair read closest together (brackets of about
130 ns); the parent interpolates between the two. Measured on torch 2.13.0 (CPU): over a
60,000-operator loop of tiny Tensor methods every top-level operator fell inside its
builtin's interval, by at least 438 ns at the start and 407 ns at the end (medians 1.1 us
and 0.9 us: the hook's own tail, argument parsing, the result's wrapping), while the offset
moved by under 10 ns between start and stop. Sequence-based alternatives were weighed: the
profiler's own Python tracer (with_stack=True) nests exactly, but installs its own
setprofile hook in place of this one and names frames without their qualified names.
A builtin call found inside an operator, the sign of clocks disagreeing, is reported by
the parent in a note.

What is not recorded:
- module bodies run by an import (from importlib's `_call_with_frames_removed`): the
  module's frame is kept, without anything it called, and nothing is recorded until it
  returns; `import torch` alone makes hundreds of thousands of calls;
- anything before the program has imported torch, for the profiler: it is started from the
  profile hook at the first event after an import that left torch imported (inside the
  hook, so its start leaves no Python frames), and stopped after the hook is removed, or
  at the --max-events cap; operators after that point are dropped by the parent. It is
  torch.autograd's profiler: torch.profiler.profile's start imports torch._inductor
  (two seconds) and may open a "ProfilerStep#" annotation around everything.
"""

import json
import os
import sys
import time

# bootstrap.py beside this file, its code reused as is; then forgotten by name, since the
# program may have a `bootstrap` module of its own.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import bootstrap as _bootstrap  # noqa: E402

del sys.path[0]
sys.modules.pop("bootstrap", None)

C_CALL, C_RETURN = 3, 4
_IMPORT_CALLER = "_call_with_frames_removed"  # importlib's frame that runs a module body
_MODULE = type(sys)


def _clock_pair():
    """(perf_counter_ns, time_ns, bracket width): the pair of readings taken closest together."""
    best = None
    for _ in range(64):
        before = time.perf_counter_ns()
        wall = time.time_ns()
        after = time.perf_counter_ns()
        if best is None or after - before < best[2]:
            best = ((before + after) // 2, wall, after - before)
    return best


def _call_key(function):
    """What a builtin's c_call and its c_return have in common. Not the object: Python 3.12
    hands the hook a new bound method for each (`t.numel()`: another object at its return)."""
    owner = getattr(function, "__self__", None)
    return id(function) if owner is None else (id(owner), getattr(function, "__name__", None))


class ProfilingRecorder(_bootstrap.Recorder):
    def __init__(self, roots, max_events, program_code):
        super().__init__(roots, max_events)
        self.program_code = program_code
        self.builtins = []  # recorded builtin names, by index
        self.builtin_index = {}  # cache key -> index, or -1 for builtins that are not torch's
        self.open_builtins = []  # _call_key of the builtins whose c_call was recorded, innermost last
        self.import_frame = None  # the module body being imported: nothing below it is recorded
        self.torch_may_be_imported = False  # an import returned: start the profiler when torch is ready
        self.imports = 0
        self.tensor_type = None  # torch._C.TensorBase, once torch is imported
        self.profiler = None
        self.profiler_error = None
        self.overload_names = False
        self.clock_start = None
        self.clock_end = None
        self.profiling_end = None  # perf_counter_ns when the profiler stopped
        self.rows = []  # the profiler's events, once it stopped
        self.trace_start = None
        self.cuda = False
        self.messages = _HeldOutput()  # what the profiler prints when it starts and stops

    # -- the hook ----------------------------------------------------------------------------

    def hook(self, frame, event, arg):
        if self.import_frame is not None:
            if frame is self.import_frame and event == "return":
                self.import_frame = None
                self.profile(frame, event, arg)
                self.torch_may_be_imported = True
            return
        if self.torch_may_be_imported:
            self.start_profiler_once_torch_is_imported()
        if event == "call":
            caller = frame.f_back
            if (
                frame.f_code.co_name == "<module>"
                and caller is not None
                and caller.f_code.co_name == _IMPORT_CALLER
                and frame.f_code is not self.program_code
            ):
                self.import_frame = frame
                self.imports += 1
            recorded = len(self.events)
            self.profile(frame, event, arg)
            if len(self.events) > recorded and not self._recorded(caller):
                # The caller line is a site in the recorded parent's file only if the caller
                # is that parent: not when importlib, functools or the like came between.
                kind, time_ns, index, _, opcode = self.events[-1]
                self.events[-1] = (kind, time_ns, index, 0, opcode)
            if self.capped:
                self.stop_profiler()  # what follows is not shown: no need to profile it
        elif event == "return":
            self.profile(frame, event, arg)
        elif event == "c_call":
            index = self._builtin(arg)
            if index < 0:
                return
            if len(self.events) >= self.max_events:
                self.capped = True
                self.stop_profiler()
                return
            self.open_builtins.append(_call_key(arg))
            line = frame.f_lineno if self._recorded(frame) else 0
            self.events.append((C_CALL, time.perf_counter_ns(), index, line, 0))
        elif self.open_builtins and self.open_builtins[-1] == _call_key(arg):  # c_return, c_exception
            self.open_builtins.pop()
            self.events.append((C_RETURN, time.perf_counter_ns(), self._builtin(arg), 0, 0))

    def _recorded(self, frame):
        return frame is not None and self.code_index.get(frame.f_code, -1) >= 0

    def _builtin(self, function):
        """The index of a torch builtin, named as the static index names bindings; -1 for
        any other builtin. Module functions are cached by identity (they live as long as
        their module); bound methods are new objects at every call, so by owner type."""
        owner = getattr(function, "__self__", None)
        if owner is None or type(owner) is _MODULE:
            key = id(function)
        else:
            key = (type(owner), getattr(function, "__module__", None), getattr(function, "__name__", None))
        index = self.builtin_index.get(key)
        if index is None:
            if self.tensor_type is None:
                return -1  # torch is not imported yet: decide when it is
            name = self._builtin_name(function, owner)
            index = -1 if name is None else len(self.builtins)
            if name is not None:
                self.builtins.append(name)
            self.builtin_index[key] = index
        return index

    def _builtin_name(self, function, owner):
        name = getattr(function, "__name__", None)
        if not isinstance(name, str):
            return None
        if isinstance(owner, self.tensor_type) or getattr(function, "__objclass__", None) is self.tensor_type:
            return f"torch._C.TensorBase.{name}"  # t.add(...), torch.Tensor.add(t, ...)
        qualname = getattr(function, "__qualname__", "")
        if qualname.startswith(("TensorBase.", "_TensorBase.")):  # static: Tensor._make_subclass
            return f"torch._C.TensorBase.{name}"
        if qualname.startswith("_VariableFunctionsClass."):
            return f"torch._C._VariableFunctions.{name}"  # torch.conv2d, torch._VF.lstm
        owner_type = type(owner)
        if owner is None or owner_type is _MODULE or owner_type.__name__.startswith("pybind11_"):
            module = getattr(function, "__module__", None) or ""
            # torch._C._nn.linear, torch._C._get_tracing_state
            return f"{module}.{name}" if module == "torch._C" or module.startswith("torch._C.") else None
        if owner_type.__module__ == "torch._C" or owner_type.__module__.startswith("torch._C."):
            return f"{owner_type.__module__}.{owner_type.__qualname__}.{name}"  # torch._C._EngineBase.run_backward
        return None

    # -- the profiler ------------------------------------------------------------------------

    def start_profiler_once_torch_is_imported(self):
        """Start the profiler if torch is imported and done initialising. Asked at every
        event after an import until then: importlib marks a module initialised only after
        its body's frame has returned."""
        # (importlib also takes the module out of sys.modules for a moment: absent is no answer)
        if self.profiler is not None or self.profiler_error is not None:
            # Started (or failed) once already: a later import (print() of a tensor imports
            # torch._tensor_str) must not start a second profiler, which would end the first
            # and drop every operator it had recorded.
            self.torch_may_be_imported = False
            return
        torch = sys.modules.get("torch")
        if torch is not None and not getattr(getattr(torch, "__spec__", None), "_initializing", False):
            self.torch_may_be_imported = False
            self._start_profiler()

    def _start_profiler(self):
        try:
            import torch
            from torch.autograd import profiler as autograd_profiler  # (see the docstring)

            self.tensor_type = getattr(torch._C, "TensorBase", None) or torch._C._TensorBase
            self.cuda = bool(torch.cuda.is_available())
            options = {"use_kineto": True, "use_cpu": True}
            if self.cuda:
                options["use_device"] = "cuda"
            try:  # overload names (aten::add.Tensor): an experimental option of recent versions
                options["experimental_config"] = torch._C._profiler._ExperimentalConfig(capture_overload_names=True)
                self.overload_names = True
            except (AttributeError, TypeError):
                pass
            profiler = autograd_profiler.profile(**options)
            self.clock_start = _clock_pair()
            with self.messages:
                profiler.__enter__()
            self.profiler = profiler
        except Exception as failure:  # a profiler that cannot start: the Python frames remain
            self.profiler_error = f"{type(failure).__name__}: {failure}"

    def stop_profiler(self):
        """Stop the profiler (at the end, or when the events are capped) and keep its events."""
        if self.profiler is None or self.profiling_end is not None:
            return
        self.profiling_end = time.perf_counter_ns()
        self.clock_end = _clock_pair()
        try:
            with self.messages:
                self.profiler.__exit__(None, None, None)
            results = self.profiler.kineto_results
            self.rows = [_event_row(event) for event in results.events()]
            self.trace_start = results.trace_start_ns()
        except Exception as failure:
            self.profiler_error = f"{type(failure).__name__}: {failure}"


class _HeldOutput:
    """Holds what is written to file descriptors 1 and 2 inside its `with`, to give it back
    apart from the program's output. The profiler's C++ side (kineto) prints lines such as
    `USDT: ... profiler_start` straight to the descriptors when it starts and stops; the
    program is not running then, so nothing of its own is held."""

    def __init__(self):
        self.text = []

    def __enter__(self):
        import tempfile

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):  # closed, or not a file
                pass
        self.held = tempfile.TemporaryFile()
        self.saved = []
        for descriptor in (1, 2):
            try:
                self.saved.append((descriptor, os.dup(descriptor)))
                os.dup2(self.held.fileno(), descriptor)
            except OSError:  # closed: nothing to hold there
                pass
        return self

    def __exit__(self, *failure):
        for descriptor, saved in self.saved:
            os.dup2(saved, descriptor)
            os.close(saved)
        self.held.seek(0)
        text = self.held.read().decode("utf-8", "replace").strip()
        self.held.close()
        if text:
            self.text.append(text)
        return False


def _event_row(event):
    """[name, overload, kind, device, start_ns, end_ns, thread, correlation, linked correlation]."""
    start = event.start_ns() if hasattr(event, "start_ns") else int(event.start_us() * 1000)
    if hasattr(event, "end_ns"):
        end = event.end_ns()
    elif hasattr(event, "duration_ns"):
        end = start + event.duration_ns()
    else:
        end = start + int(event.duration_us() * 1000)
    overload = event.overload_name() if hasattr(event, "overload_name") else ""
    device = str(event.device_type()).rsplit(".", 1)[-1].lower()
    kind = event.activity_type() if hasattr(event, "activity_type") else ("cpu_op" if device == "cpu" else "kernel")
    return [
        event.name(),
        overload,
        kind,
        device,
        start,
        end,
        event.start_thread_id(),
        event.correlation_id(),
        event.linked_correlation_id(),
    ]


def main(config_path):
    config, program = _bootstrap.load(config_path)
    recorder = ProfilingRecorder(config["roots"], config["max_events"], program)
    recorder.start_profiler_once_torch_is_imported()  # torch imported already (sitecustomize)
    exit_code, error = _bootstrap.execute(program, recorder.hook)
    program_end = time.perf_counter_ns()
    recorder.stop_profiler()
    recorder.write(config["events"], exit_code, error)
    document = {
        "version": 1,
        "builtins": recorder.builtins,
        "imports": recorder.imports,
        "program_end_ns": program_end,
        "profiling_end_ns": recorder.profiling_end,
        "profiler_started": recorder.profiler is not None,
        "profiler_error": recorder.profiler_error,
        "profiler_messages": "\n".join(recorder.messages.text),
        "overload_names": recorder.overload_names,
        "cuda": recorder.cuda,
        "clock_start": recorder.clock_start,
        "clock_end": recorder.clock_end,
        "trace_start_ns": recorder.trace_start,
        "events": recorder.rows,
    }
    with open(config["profile"], "w", encoding="utf-8") as out:
        json.dump(document, out)
    sys.stdout.flush()
    sys.stderr.flush()
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
