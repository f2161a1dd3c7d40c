def one():
    return 1


def two():
    return 2


def inner():
    yield one()


def outer():
    yield from inner()
    yield two()


print(list(outer()))
