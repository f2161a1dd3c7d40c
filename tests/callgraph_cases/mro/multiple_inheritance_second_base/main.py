class Reader:
    def read(self):
        return "data"


class Writer:
    def write(self, text):
        return len(text)


class Stream(Reader, Writer):
    pass


s = Stream()
n = s.write("abc")
