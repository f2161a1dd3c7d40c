def read_user():
    return "user"


def write_user():
    return "ok"


def read_post():
    return "post"


routes = {
    "user": {"get": read_user, "put": write_user},
    "post": {"get": read_post},
}
result = routes["user"]["put"]()
