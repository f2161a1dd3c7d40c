def add(a, b):
    return a + b


def sub(a, b):
    return a - b


ops = {"plus": add, "minus": sub}
x = ops["plus"](5, 3)
y = ops["minus"](5, 3)
