def count_ints(values):
    total = 0
    for i in range(len(values)):
        if isinstance(values[i], int):
            total += 1
    return total


print(count_ints([1, "a", 2]))
