def mylen(seq):
    count = 0
    for _ in seq:
        count += 1
    return count


def measure(items):
    len = mylen
    return len(items)


measure([1, 2, 3])
n = len("abc")
