def scale(v):
    return v * 10
