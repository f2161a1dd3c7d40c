class Rect:
    def __init__(self, w, h):
        self.w = w
        self.h = h

    @property
    def area(self):
        return self.w * self.h


def report(r):
    return r.area


size = report(Rect(2, 5))
