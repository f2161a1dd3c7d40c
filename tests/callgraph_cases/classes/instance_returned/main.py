class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def make_square():
    return Square(6)


def demo():
    shape = make_square()
    return shape.area()


demo()
