class ParseError(Exception):
    def describe(self):
        return "parse error: " + str(self.args[0])


def parse(text):
    if text == "":
        raise ParseError("empty")
    return text


try:
    parse("")
except ParseError as e:
    print(e.describe())
