def summarize():
    names = []
    names.append("b")
    names.append("a")
    scores = {"a": 1, "b": 2}
    parts = []
    for key, val in scores.items():
        parts.append(key)
    return ", ".join(parts).upper()


summarize()
