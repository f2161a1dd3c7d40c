class Swimmer:
    def move(self):
        return "swim"


class Walker:
    def move(self):
        return "walk"


class Duck(Swimmer, Walker):
    pass


how = Duck().move()
