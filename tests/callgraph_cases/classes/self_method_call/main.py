class Report:
    def header(self):
        return "== report =="

    def body(self):
        return "all good"

    def render(self):
        return self.header() + "\n" + self.body()


out = Report().render()
