from ..util import clamp


def work(v):
    return clamp(v) + 1
