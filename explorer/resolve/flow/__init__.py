"""Value flow for Python: facts read from the index (facts.py), abstract values (values.py)
and the on-demand points-to solver (solver.py)."""
