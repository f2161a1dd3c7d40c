class Session:
    def __init__(self, name):
        self.name = name
        self.open = False

    def __enter__(self):
        self.open = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self.open = False
        return False

    def query(self):
        return self.name + ":ok"


with Session("db") as s:
    answer = s.query()
