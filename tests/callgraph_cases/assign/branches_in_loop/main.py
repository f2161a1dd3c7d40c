def even_action():
    return "even"


def odd_action():
    return "odd"


def run():
    out = []
    for i in range(4):
        if i % 2 == 0:
            act = even_action
        else:
            act = odd_action
        out.append(act())
    return out


run()
