def apply_twice(f, x):
    return f(f(x))


apply_twice(lambda v: v + 3, 1)
