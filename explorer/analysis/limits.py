"""How far a trace or a diagram goes unless told otherwise (here, not beside the code that uses
them, so that the command line can show them without loading the call graph)."""

DEFAULT_PATHS = 20  # listed with --to, best first; `--paths N` asks for more
DEFAULT_DEPTH = 6  # a whole tree this deep is already long on a real tree
DEFAULT_DEPTH_TO = 40  # a path from nn.Conv2d to cuDNN is about 25 hops on PyTorch 2.4
DEFAULT_MAX_NODES = 60  # a diagram's nodes before the widest subtrees fold into '+N more'
