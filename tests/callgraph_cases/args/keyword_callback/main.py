def process(value, callback):
    return callback(value)


def negate(x):
    return -x


process(callback=negate, value=5)
