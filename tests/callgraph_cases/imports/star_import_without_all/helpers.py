def alpha():
    return beta() + 1


def beta():
    return 1


def _hidden():
    return 0
