def shout():
    return "HEY"


def whisper():
    return "hey"


def factory(kind):
    def loud():
        return shout()

    def quiet():
        return whisper()

    if kind == "loud":
        return loud
    return quiet


for kind in ("loud", "quiet"):
    speaker = factory(kind)
    print(speaker())
