HANDLERS = {}


def register(fn):
    HANDLERS[fn.__name__] = fn
    return fn


@register
def on_start():
    return "started"


@register
def on_stop():
    return "stopped"


print(HANDLERS["on_start"](), HANDLERS["on_stop"]())
