def triple(x):
    return x


def compute():
    from calc import triple
    return triple(3)


compute()
triple(2)
