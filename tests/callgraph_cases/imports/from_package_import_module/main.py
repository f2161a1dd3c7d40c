from geometry import circle


def report():
    return circle.area(2)


report()
