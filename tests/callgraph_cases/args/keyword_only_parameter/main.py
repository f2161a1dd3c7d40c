def compute(x, *, post):
    return post(x)


def halve(v):
    return v / 2


def double(v):
    return v * 2


compute(8, post=halve)
