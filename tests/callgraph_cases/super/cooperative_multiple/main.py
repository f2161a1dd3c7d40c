class Base:
    def tag(self):
        return "B"


class Left(Base):
    def tag(self):
        return "L" + super().tag()


class Right(Base):
    def tag(self):
        return "R" + super().tag()


class Both(Left, Right):
    def tag(self):
        return "X" + super().tag()


print(Both().tag())
