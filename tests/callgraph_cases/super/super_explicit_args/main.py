class Store:
    def save(self, item):
        return "saved " + item


class CachedStore(Store):
    def save(self, item):
        return super(CachedStore, self).save(item)


msg = CachedStore().save("x")
