from shapes import Rect

r = Rect(2, 3)
print(r.area())
