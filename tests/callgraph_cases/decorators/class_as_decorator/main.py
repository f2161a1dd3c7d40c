class CountCalls:
    def __init__(self, fn):
        self.fn = fn
        self.calls = 0

    def __call__(self, name):
        self.calls += 1
        return self.fn(name)


@CountCalls
def greet(name):
    return "hi " + name


greet("ann")
greet("bob")
print(greet.calls)
