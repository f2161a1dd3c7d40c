"""Value flow for Python: facts read from the index (facts.py), abstract values (values.py),
and the on-demand points-to solver: its worklist and Python's semantics (solver.py), the
compiler from facts to constraints (compiler.py), the models of builtins and the standard
library (builtin_models.py) and the records they pass each other (calls.py); edges.py turns
what it found into call graph edges."""
