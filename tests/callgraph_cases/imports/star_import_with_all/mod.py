__all__ = ["run"]


def run():
    return helper() * 2


def helper():
    return 21
