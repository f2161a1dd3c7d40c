class Temperature:
    def __init__(self, celsius):
        self.celsius = celsius

    @classmethod
    def from_fahrenheit(cls, f):
        return cls((f - 32) * 5 / 9)

    def describe(self):
        return round(self.celsius)


t = Temperature.from_fahrenheit(212)
value = t.describe()
