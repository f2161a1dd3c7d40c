def square(n):
    return n * n


def area(side):
    return square(side)
