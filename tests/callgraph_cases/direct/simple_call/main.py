def greet(name):
    return "hi " + name


def run():
    return greet("ann")


print(run())
