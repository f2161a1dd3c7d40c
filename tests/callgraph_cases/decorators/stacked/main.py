def record(tag):
    return tag


def log_call(fn):
    def log_wrapper():
        record("log")
        return fn()

    return log_wrapper


def time_call(fn):
    def time_wrapper():
        record("time")
        return fn()

    return time_wrapper


@log_call
@time_call
def job():
    return 1


print(job())
