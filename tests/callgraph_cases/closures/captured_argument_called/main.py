def hello():
    return "hello"


def make_runner(fn):
    def run():
        return fn()

    return run


runner = make_runner(hello)
print(runner())
