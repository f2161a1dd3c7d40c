from .core import process


def handle(x):
    return process(x) + 1
