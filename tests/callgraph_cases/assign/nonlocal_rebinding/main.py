def start():
    return "start"


def stop():
    return "stop"


def machine():
    action = start

    def switch():
        nonlocal action
        action = stop

    switch()
    return action()


machine()
