def lookup(key):
    return len(key)


fetch = lambda k: lookup(k)
print(fetch("abc"))
