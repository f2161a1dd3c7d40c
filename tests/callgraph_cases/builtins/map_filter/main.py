def double(x):
    return x * 2


def is_even(x):
    return x % 2 == 0


doubled = list(map(double, [1, 2, 3]))
evens = list(filter(is_even, range(6)))
print(doubled, evens)
