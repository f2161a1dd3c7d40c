class Adder:
    def __init__(self, amount):
        self.amount = amount

    def __call__(self, x):
        return x + self.amount


def apply_twice(callback, value):
    return callback(callback(value))


result = apply_twice(Adder(10), 1)
