PI = 3.14


def area(r):
    return PI * r * r


def circumference(r):
    return 2 * PI * r
