def mark(fn):
    fn.marked = True
    return fn


@mark
def compute():
    return 7


print(compute(), compute.marked)
