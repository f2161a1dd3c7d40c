def square(x):
    return x * x


def squares(n):
    for i in range(n):
        yield square(i)


total = 0
for value in squares(3):
    total += value
print(total)
