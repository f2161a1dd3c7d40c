def make_scaler(k):
    def scale(x):
        return x * k
    return scale


scalers = [make_scaler(k) for k in range(1, 4)]
total = 0
for s in scalers:
    total += s(10)
