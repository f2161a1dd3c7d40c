def bump(n):
    return n + 1


def make_counter():
    count = 0

    def step():
        nonlocal count
        count = bump(count)
        return count

    return step


tick = make_counter()
tick()
print(tick())
