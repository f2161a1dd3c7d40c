def on_start():
    return "started"


def on_stop():
    return "stopped"


def dispatch():
    handlers = (on_start, on_stop)
    return handlers[1]()


dispatch()
