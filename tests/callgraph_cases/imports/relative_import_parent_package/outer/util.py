def clamp(v):
    if v > 10:
        return 10
    return v
