class PairIterator:
    def __init__(self, items):
        self.items = items
        self.pos = 0

    def __next__(self):
        if self.pos >= len(self.items):
            raise StopIteration()
        value = self.items[self.pos]
        self.pos += 1
        return value


class Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __iter__(self):
        return PairIterator([self.a, self.b])


def consume():
    seen = 0
    for x in Pair(4, 5):
        seen += x
    return seen


consume()
