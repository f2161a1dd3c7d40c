from functools import partial


def greet(greeting, name):
    return greeting + ", " + name


def make_greeter(greeting):
    return partial(greet, greeting)


hello = make_greeter("hello")
print(hello("ann"))
