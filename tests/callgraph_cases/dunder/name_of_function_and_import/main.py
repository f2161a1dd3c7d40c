import os.path


def greet():
    return "hi"


def label(fn):
    return fn.__name__.upper()


def describe():
    return label(greet), os.path.join.__qualname__.lower(), greet.__module__.strip("_")


print(describe())
