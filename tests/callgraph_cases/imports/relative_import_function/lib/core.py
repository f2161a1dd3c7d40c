def process(x):
    return x * 3
