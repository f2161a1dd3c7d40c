def identity(x):
    return x


def convert(x, fn=identity):
    return fn(x)


convert(3)
