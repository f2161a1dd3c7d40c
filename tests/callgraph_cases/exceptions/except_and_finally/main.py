def risky():
    raise ValueError("bad")


def recover():
    return 0


def cleanup():
    return None


def run():
    try:
        return risky()
    except ValueError:
        return recover()
    finally:
        cleanup()


print(run())
