def target():
    return 42


def inner_factory():
    return target


def outer_factory():
    return inner_factory()


fn = outer_factory()
fn()
