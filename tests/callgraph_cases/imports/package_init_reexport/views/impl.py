def render(page):
    return layout(page)


def layout(page):
    return "<" + page + ">"
