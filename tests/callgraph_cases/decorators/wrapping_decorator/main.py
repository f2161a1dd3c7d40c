def log(message):
    return message


def traced(fn):
    def wrapper(x):
        log("calling")
        return fn(x)

    return wrapper


@traced
def double(x):
    return x * 2


print(double(4))
