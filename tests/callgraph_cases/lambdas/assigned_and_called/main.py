square = lambda x: x * x

result = square(4)
print(result)
