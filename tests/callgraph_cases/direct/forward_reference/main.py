def first():
    return second() + 1


def second():
    return third() * 2


def third():
    return 5


print(first())
