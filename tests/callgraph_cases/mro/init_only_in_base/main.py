class Vehicle:
    def __init__(self, wheels):
        self.wheels = wheels


class Bike(Vehicle):
    def ring(self):
        return "ring"


b = Bike(2)
sound = b.ring()
