from collections import OrderedDict


def build():
    od = OrderedDict()
    od["a"] = 1
    od["b"] = 2
    od.move_to_end("a")
    return od.popitem()


print(build())
