import functools


def power(base, exp):
    return base ** exp


square = functools.partial(power, exp=2)
print(square(3), square(4))
