def start():
    return "start"


def stop():
    return "stop"


actions = [lambda: start(), lambda: stop()]
for action in actions:
    action()
