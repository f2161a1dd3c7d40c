def format_name(name):
    return "<" + name + ">"


def make_greeter(name):
    def greet():
        return format_name(name)

    return greet


class Button:
    def __init__(self, on_click):
        self.on_click = on_click

    def press(self):
        return self.on_click()


button = Button(make_greeter("ann"))
print(button.press())
