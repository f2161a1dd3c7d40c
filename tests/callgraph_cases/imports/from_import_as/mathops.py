def add(a, b):
    return a + b


def add_three(a, b, c):
    return add(add(a, b), c)
