class Animal:
    def sound(self):
        return "..."


class Dog(Animal):
    def sound(self):
        return "woof"


d = Dog()
noise = d.sound()
