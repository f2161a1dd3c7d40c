def note():
    return "note"


def logged(fn):
    def wrapper(self):
        note()
        return fn(self)

    return wrapper


class Service:
    @logged
    def run(self):
        return "ran"


print(Service().run())
