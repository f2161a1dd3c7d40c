def log(msg):
    return "log:" + msg


def quiet(msg):
    return ""


def emit(log, msg):
    return log(msg)


emit(quiet, "hi")
log("direct")
