def a():
    return 1


def b():
    return 2


def c():
    return 3


def run():
    first, *rest = [a, b, c]
    total = 0
    for h in rest:
        total += h()
    return total


run()
