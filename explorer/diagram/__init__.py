"""Diagrams of call chains: the records (model.py), built from a report (build.py, run.py),
shaped (fold.py); render/ writes them."""

FORMATS = ("dot", "svg", "png", "html")  # what a diagram can be written as
