def helper(x):
    return x + 1


def compute(n):
    step = lambda v: helper(v)
    return step(n)


print(compute(2))
