from store.items import make_item

item = make_item("pen")
