def tidy():
    words = []
    words.append("beta")
    words.append("alpha")
    joined = ", ".join(words)
    counts = {"alpha": 1}
    return joined.upper(), counts.get("beta", 0)


print(tidy())
