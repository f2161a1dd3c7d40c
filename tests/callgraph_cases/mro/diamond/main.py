class Root:
    def render(self):
        return "root"


class Left(Root):
    pass


class Right(Root):
    def render(self):
        return "right"


class Bottom(Left, Right):
    pass


out = Bottom().render()
