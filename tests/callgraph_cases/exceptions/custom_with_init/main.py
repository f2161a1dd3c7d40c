def describe(amount):
    return amount * 2


class QuotaError(Exception):
    def __init__(self, used):
        self.used = used
        self.detail = describe(used)


def consume(n):
    if n > 3:
        raise QuotaError(n)
    return n


try:
    consume(5)
except QuotaError as err:
    print(err.detail)
