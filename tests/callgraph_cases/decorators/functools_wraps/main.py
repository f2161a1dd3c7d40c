import functools


def audit(fn):
    @functools.wraps(fn)
    def wrapper(a, b):
        return fn(a, b)

    return wrapper


@audit
def add(a, b):
    return a + b


print(add(1, 2), add.__name__)
