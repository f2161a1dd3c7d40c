def load():
    return "data"


def save():
    return "ok"


reader, writer = load, save
writer()
