def repeat(times):
    def deco(fn):
        def wrapper():
            for _ in range(times):
                fn()

        return wrapper

    return deco


@repeat(2)
def tick():
    return "tick"


tick()
