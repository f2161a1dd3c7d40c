class Level1:
    def cost(self):
        return 1


class Level2(Level1):
    def cost(self):
        return 10 + super().cost()


class Level3(Level2):
    def cost(self):
        return 100 + super().cost()


total = Level3().cost()
