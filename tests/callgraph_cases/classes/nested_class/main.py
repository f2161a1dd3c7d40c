class Tree:
    class Node:
        def __init__(self, label):
            self.label = label

        def show(self):
            return "<" + self.label + ">"

    def root(self):
        return Tree.Node("root")


node = Tree().root()
shown = node.show()
