def make_item(name):
    return {"name": name, "tags": empty_tags()}


def empty_tags():
    return []
