def helper():
    return 1


def other():
    return 2


def wrapper():
    return other()


value = helper()
wrapper()
