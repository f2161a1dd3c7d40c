def trigger(**hooks):
    hooks["before"]()
    hooks["after"]()


def setup():
    return "setup"


def teardown():
    return "teardown"


trigger(before=setup, after=teardown)
