class Token:
    def text(self):
        return "tok"


def build():
    t = Token()
    return t.text()


build()
