def by_length(word):
    return len(word)


def last_char(word):
    return word[-1]


def arrange(words):
    ordered = sorted(words, key=by_length)
    best = max(words, key=last_char)
    return ordered, best


print(arrange(["pear", "fig", "banana"]))
