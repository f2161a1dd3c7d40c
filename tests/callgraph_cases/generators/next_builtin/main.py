def make_id(n):
    return n * 10


def ids():
    yield make_id(1)
    yield make_id(2)


gen = ids()
first = next(gen)
second = next(gen)
print(first + second)
