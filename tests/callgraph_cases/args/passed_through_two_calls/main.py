def leaf(x):
    return x * 2


def middle(fn, x):
    return bottom(fn, x)


def bottom(fn, x):
    return fn(x)


middle(leaf, 4)
