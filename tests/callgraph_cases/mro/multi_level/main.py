class Base:
    def ident(self):
        return "base"


class Middle(Base):
    def level(self):
        return 2


class Leaf(Middle):
    def extra(self):
        return "leaf"


leaf = Leaf()
a = leaf.ident()
b = leaf.level()
