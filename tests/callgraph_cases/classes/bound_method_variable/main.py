class Accumulator:
    def __init__(self):
        self.total = 0

    def add(self, x):
        self.total += x

    def size(self):
        return self.total


def fill():
    acc = Accumulator()
    push = acc.add
    push(1)
    push(2)
    return acc


fill()
