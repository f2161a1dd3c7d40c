class Formatter:
    def format(self, text):
        return "<" + text + ">"


class LoudFormatter(Formatter):
    def format(self, text):
        base = super().format(text)
        return base + "!"


out = LoudFormatter().format("hey")
