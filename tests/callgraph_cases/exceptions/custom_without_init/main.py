class EmptyInput(Exception):
    pass


def validate(items):
    if not items:
        raise EmptyInput
    return len(items)


validate([1, 2])
try:
    validate([])
except EmptyInput:
    pass
