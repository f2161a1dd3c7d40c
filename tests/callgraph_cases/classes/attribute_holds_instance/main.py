class Engine:
    def start(self):
        return "vroom"


class Car:
    def __init__(self):
        self.engine = Engine()

    def drive(self):
        return self.engine.start()


car = Car()
sound = car.drive()
