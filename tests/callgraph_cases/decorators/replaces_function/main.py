def stub():
    return "stub"


def replace_with_stub(fn):
    return stub


@replace_with_stub
def real():
    return "real"


print(real())
