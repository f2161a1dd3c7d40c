class Shape:
    def name(self):
        return "shape"


class Circle(Shape):
    def radius(self):
        return 1


c = Circle()
label = c.name()
