def setup():
    return "ready"


def register_class(cls):
    cls.registered = True
    return cls


@register_class
class Plugin:
    def __init__(self):
        self.state = setup()


plugin = Plugin()
print(plugin.state, Plugin.registered)
