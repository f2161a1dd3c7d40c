def alpha():
    return "a"


def beta():
    return "b"


def build():
    handlers = []
    for fn in (alpha, beta):
        def handler():
            return fn()

        handlers.append(handler)
    return handlers


for h in build():
    h()
