def compute(x):
    return double(x) + 1


def double(x):
    return x * 2
