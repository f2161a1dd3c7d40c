import tools as t

total = t.scale(2)
print(total)
