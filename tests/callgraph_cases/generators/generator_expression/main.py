def double(x):
    return 2 * x


def total(n):
    return sum(double(i) for i in range(n))


print(total(4))
