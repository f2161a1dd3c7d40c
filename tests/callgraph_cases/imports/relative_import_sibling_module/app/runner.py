from . import config


def start():
    return config.load()
