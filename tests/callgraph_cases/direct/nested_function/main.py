def outer(x):
    def inner(y):
        return y * 2

    return inner(x) + 1


def start():
    return outer(3)


result = start()
