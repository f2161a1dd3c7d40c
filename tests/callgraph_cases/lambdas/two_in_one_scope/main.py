def one():
    return 1


def two():
    return 2


first = lambda: one()
second = lambda: two()

second()
first()
