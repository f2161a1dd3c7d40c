def helper():
    return 42


def outer():
    def inner():
        return helper()

    return inner


print(outer()())
