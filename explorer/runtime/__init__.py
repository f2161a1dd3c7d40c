"""Dynamic call stacks: run code under tracing and lay the result over the static chain.

The flow, one module a step:
1. launcher.py starts the program in a subprocess with bootstrap.py, which records Python
   calls with sys.setprofile; native calls are recorded by native/recorder.cpp, compiled into
   an instrumented build of the bundled runtime (-finstrument-functions).
2. events.py reads both recordings and merges them by time into one tree of raw frames.
3. symbols.py names native frames from the library's symbol table (demangled); naming.py
   turns every raw frame into a RunFrame named the way the static index names definitions,
   folding the runtime's glue (dispatcher, argument parsing) into the operator it serves.
4. shaping.py applies --include/--exclude and the depth limit; compare.py lays the tree over
   the static call graph.
profiler.py does steps 1-3 for real PyTorch, from its profiler's operator events.
"""
