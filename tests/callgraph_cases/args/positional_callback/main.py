def apply(func, value):
    return func(value)


def inc(x):
    return x + 1


apply(inc, 1)
