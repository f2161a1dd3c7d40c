def triple(n):
    return n * 3


def negate(n):
    return -n


class Transformer:
    def __init__(self, fn):
        self.fn = fn

    def apply(self, value):
        return self.fn(value)


t = Transformer(triple)
answer = t.apply(7)
