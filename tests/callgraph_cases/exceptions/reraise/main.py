def note():
    return "noted"


def handle():
    return "handled"


def lookup():
    raise KeyError("missing")


def middle():
    try:
        lookup()
    except KeyError:
        note()
        raise


try:
    middle()
except KeyError:
    handle()
