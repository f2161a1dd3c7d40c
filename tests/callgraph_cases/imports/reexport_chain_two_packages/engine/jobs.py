def run_job(n):
    return prepare(n) + 1


def prepare(n):
    return n
