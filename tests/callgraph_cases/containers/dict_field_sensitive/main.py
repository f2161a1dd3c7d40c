def alpha():
    return "a"


def beta():
    return "b"


table = {"a": alpha, "b": beta}
picked = table["a"]()
