def compute():
    return 3


def pick():
    return compute


def run():
    if (f := pick()) is not None:
        return f()
    return 0


run()
