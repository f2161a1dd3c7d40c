def first():
    return 1


def second():
    return 2


def run():
    g = first
    g = second
    return g()


run()
