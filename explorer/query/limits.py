"""How far a trace goes unless told otherwise (here, not in trace.py, so that the command line
can show them without loading the call graph)."""

DEFAULT_PATHS = 20  # listed with --to, best first; `--paths N` asks for more
DEFAULT_DEPTH = 6  # a whole tree this deep is already long on a real tree
DEFAULT_DEPTH_TO = 40  # a path from nn.Conv2d to cuDNN is about 25 hops on PyTorch 2.4
