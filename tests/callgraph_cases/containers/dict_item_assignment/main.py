def on_click():
    return "clicked"


def on_hover():
    return "hovered"


def wire():
    events = {}
    events["click"] = on_click
    events["hover"] = on_hover
    return events["click"]()


wire()
