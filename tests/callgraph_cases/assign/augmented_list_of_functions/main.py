def step_one():
    return 1


def step_two():
    return 2


def pipeline():
    steps = [step_one]
    steps += [step_two]
    total = 0
    for step in steps:
        total += step()
    return total


pipeline()
