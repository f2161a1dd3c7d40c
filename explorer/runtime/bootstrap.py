"""Runs a program under sys.setprofile and writes the Python calls it made to a file.

This file is executed by the interpreter that runs the traced program (possibly another
Python than explorer's, without explorer installed): it imports nothing but the standard
library. Usage: python bootstrap.py CONFIG.json, where the config names the program
("code" or "script" with "argv"), the output file, which source folders count as the
program's own ("roots"), and the most events to record.

Each event is one tuple: (kind, time_ns, code_index, caller_line, caller_opcode). Times come
from time.perf_counter_ns(), which is CLOCK_MONOTONIC on Linux, the clock the native
recorder reads too, so the parent can merge both recordings by time.
"""

import dis
import inspect
import json
import os
import sys
import time
import traceback

CALL, RETURN = 1, 2

# Opcodes by which a caller makes an explicit call; a frame entered from any other
# instruction was entered implicitly (a property, __getattr__, an operator, `with`, ...).
_EXPLICIT = {dis.opmap[name] for name in ("CALL", "CALL_FUNCTION_EX", "CALL_KW") if name in dis.opmap}
# While a call runs, the caller's f_lasti may point into the inline cache entries that
# follow its CALL instruction (3.11+); the instruction itself is the last non-cache before.
_CACHE = dis.opmap.get("CACHE", -1)
_CALL = dis.opmap["CALL"] if "CALL" in dis.opmap else dis.opmap["CALL_FUNCTION"]


def _caller_opcode(caller):
    code = caller.f_code.co_code
    offset = caller.f_lasti
    while offset > 0 and code[offset] == _CACHE:
        offset -= 2
    return code[offset] if offset >= 0 else 0


class Recorder:
    def __init__(self, roots, max_events):
        self.roots = tuple(os.path.join(os.path.abspath(root), "") for root in roots)
        self.max_events = max_events
        self.events = []
        self.codes = []  # code objects, by index
        self.code_index = {}  # code object -> index, or -1 when not recorded
        self.open_frames = []  # frames whose 'call' was recorded and whose 'return' is due
        self.capped = False
        self.importing = None  # the module body being imported, whose calls are not recorded
        self.receivers = []  # (event index, class of `self`) for calls of methods

    def _index(self, frame):
        code = frame.f_code
        index = self.code_index.get(code)
        if index is None:
            filename = code.co_filename
            wanted = filename == "<string>" or filename == _SCRIPT[0] or filename.startswith(self.roots)
            if wanted:
                index = len(self.codes)
                self.codes.append((code, frame.f_globals.get("__name__", "")))
            else:
                index = -1
            self.code_index[code] = index
        return index

    def profile(self, frame, event, arg):
        if event == "call":
            if self.importing is not None:
                return  # inside an imported module's body: start-up, not the program's calls
            index = self._index(frame)
            if index < 0:
                return
            if len(self.events) >= self.max_events:
                self.capped = True
                return
            caller = frame.f_back
            if caller is not None and self.open_frames and caller is self.open_frames[-1]:
                line, opcode = caller.f_lineno, _caller_opcode(caller)
            else:
                # Called from code that is not recorded (the standard library, a wrapper):
                # its line would not be a line of the recorded parent.
                line, opcode = 0, _CALL
            self.open_frames.append(frame)
            code = frame.f_code
            if code.co_argcount and code.co_varnames[0] == "self":
                # the class `self` is in this call: the static graph resolves `self.m()` by it
                receiver = type(frame.f_locals.get("self"))
                self.receivers.append((len(self.events), f"{receiver.__module__}.{receiver.__qualname__}"))
            self.events.append((CALL, time.perf_counter_ns(), index, line, opcode))
            if frame.f_code.co_name == "<module>" and frame.f_code.co_filename not in ("<string>", _SCRIPT[0]):
                self.importing = frame
        elif event == "return" and self.open_frames and self.open_frames[-1] is frame:
            if frame is self.importing:
                self.importing = None
            self.open_frames.pop()
            self.events.append((RETURN, time.perf_counter_ns(), self.code_index[frame.f_code], 0, 0))

    def write(self, path, exit_code, error):
        codes = [
            {
                "file": code.co_filename,
                "qualname": getattr(code, "co_qualname", code.co_name),
                "line": code.co_firstlineno,
                "module": module,
                # a module or class body (no function scope of its own), not a function
                "body": not code.co_flags & inspect.CO_OPTIMIZED,
            }
            for code, module in self.codes
        ]
        events = [
            (kind, t, index, line, 1 if opcode in _EXPLICIT else 0) for kind, t, index, line, opcode in self.events
        ]
        document = {
            "version": 1,
            "exit_code": exit_code,
            "error": error,
            "capped": self.capped,
            "max_events": self.max_events,
            "codes": codes,
            "events": events,
            "receivers": self.receivers,
        }
        with open(path, "w", encoding="utf-8") as out:
            json.dump(document, out)


_SCRIPT = [None]  # the traced script's absolute path, when a script is traced


def _program(config):
    if config.get("code") is not None:
        sys.argv = ["-c", *config.get("argv", [])]
        sys.path.insert(0, "")
        return compile(config["code"], "<string>", "exec")
    script = os.path.abspath(config["script"])
    _SCRIPT[0] = script
    sys.argv = [config["script"], *config.get("argv", [])]
    sys.path.insert(0, os.path.dirname(script))
    with open(script, "rb") as source:
        return compile(source.read(), script, "exec")


def execute(program, hook):
    """Run the compiled program as __main__ with `hook` as the profile function; return its
    exit code and, when it failed, its error in one line (its traceback goes to stderr)."""
    import __main__

    main_module = type(__main__)("__main__")
    main_module.__dict__.update(
        {"__name__": "__main__", "__builtins__": __builtins__, "__file__": _SCRIPT[0] or "<string>"}
    )
    sys.modules["__main__"] = main_module
    exit_code, error = 0, None
    sys.setprofile(hook)
    try:
        exec(program, main_module.__dict__)
    except SystemExit as stop:
        code = stop.code
        exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
    except BaseException as failure:  # the program's own error: report it, keep the trace
        sys.setprofile(None)
        exit_code = 1
        error = "".join(traceback.format_exception_only(type(failure), failure)).strip()
        # The traceback starts at the program: this file's frame is not the program's.
        traceback.print_exception(type(failure), failure, failure.__traceback__.tb_next)
    finally:
        sys.setprofile(None)
    return exit_code, error


def load(config_path):
    """The run's configuration and its compiled program; this file's folder leaves sys.path
    (the program must not import from it)."""
    with open(config_path, encoding="utf-8") as handle:
        config = json.load(handle)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    return config, _program(config)


def main(config_path):
    config, program = load(config_path)
    recorder = Recorder(config["roots"], config["max_events"])
    traced = os.getpid()  # a child the program forks runs this too: only this process records
    real_exit = os._exit

    def exit_now(code):
        """os._exit skips everything after it: the recording is written first."""
        sys.setprofile(None)
        if os.getpid() == traced:
            try:
                recorder.write(config["events"], code, None)
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:  # exiting as asked comes first
                pass
        real_exit(code)

    os._exit = exit_now
    exit_code, error = execute(program, recorder.profile)
    if os.getpid() == traced:
        recorder.write(config["events"], exit_code, error)
    sys.stdout.flush()
    sys.stderr.flush()
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
