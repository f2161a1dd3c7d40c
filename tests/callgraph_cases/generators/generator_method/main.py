def visit(node):
    return node * 2


class Tree:
    def __init__(self, nodes):
        self.nodes = nodes

    def walk(self):
        for node in self.nodes:
            yield visit(node)


tree = Tree([1, 2, 3])
print(list(tree.walk()))
