class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1


def repeat(action, times):
    for _ in range(times):
        action()


c = Counter()
repeat(c.bump, 3)
