class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1

    def total(self):
        return self.n

    def reset(self):
        self.n = 0


c = Counter()
c.bump()
c.bump()
result = c.total()
