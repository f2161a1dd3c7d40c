def convert():
    text = str(42)
    items = list("ab")
    table = dict(a=1)
    items.append(text)
    table.update(b=2)
    return text.zfill(4), items, table


print(convert())
