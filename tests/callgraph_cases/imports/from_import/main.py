from shapes import area


def go():
    return area(3)


go()
