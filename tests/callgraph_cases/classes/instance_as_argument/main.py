class Printer:
    def emit(self, text):
        return "[" + text + "]"


class Logger:
    def emit(self, text):
        return text


def publish(sink, text):
    return sink.emit(text)


publish(Printer(), "hi")
