def ping():
    return "pong"


def pong():
    return "ping"


a = b = ping
b()
