from functools import partial


def scale(factor, value):
    return factor * value


def run_callback(cb):
    return cb(5)


print(run_callback(partial(scale, 3)))
