class Cat:
    def __init__(self, name):
        self.name = name

    def speak(self):
        return "meow"


class Dog:
    def __init__(self, name):
        self.name = name

    def speak(self):
        return "woof"


kinds = {"cat": Cat, "dog": Dog}
pet = kinds["dog"]("rex")
noise = pet.speak()
