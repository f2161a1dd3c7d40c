def load():
    return defaults()


def defaults():
    return {"debug": False}
