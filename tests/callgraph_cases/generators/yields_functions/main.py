def prepare():
    return "prepared"


def finish():
    return "finished"


def pipeline():
    yield prepare
    yield finish


for step in pipeline():
    step()
