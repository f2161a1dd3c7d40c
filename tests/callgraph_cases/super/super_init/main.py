class Person:
    def __init__(self, name):
        self.name = name


class Employee(Person):
    def __init__(self, name, role):
        super().__init__(name)
        self.role = role


e = Employee("kim", "dev")
