def apply_twice(fn, value):
    return fn(fn(value))


print(apply_twice(lambda v: v + 3, 1))
