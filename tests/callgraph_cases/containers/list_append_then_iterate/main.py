def load():
    return 1


def save():
    return 2


pipeline = []
pipeline.append(load)
pipeline.append(save)
for stage in pipeline:
    stage()
