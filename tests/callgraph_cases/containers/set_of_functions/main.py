def ping():
    return "ping"


def pong():
    return "pong"


count = 0
for probe in {ping, pong}:
    probe()
    count += 1
