def wash():
    return "wash"


def rinse():
    return "rinse"


def spin():
    return "spin"


def cycle():
    count = 0
    for step in [wash, rinse, spin]:
        step()
        count += 1
    return count


cycle()
