def default_handler():
    return 0


def custom_handler():
    return 1


handler = default_handler


def install():
    global handler
    handler = custom_handler


def fire():
    return handler()


install()
fire()
