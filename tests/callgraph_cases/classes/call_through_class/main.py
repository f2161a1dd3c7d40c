class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return "hello " + self.name


g = Greeter("ada")
message = Greeter.greet(g)
