def left():
    return "L"


def right():
    return "R"


x, y = left, right
x, y = y, x
x()
