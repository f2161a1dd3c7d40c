def run_all(*funcs):
    results = []
    for f in funcs:
        results.append(f())
    return results


def one():
    return 1


def two():
    return 2


run_all(one, two)
