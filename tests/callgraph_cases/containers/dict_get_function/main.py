def greet_en():
    return "hello"


def greet_fr():
    return "bonjour"


greetings = {"en": greet_en, "fr": greet_fr}
fn = greetings.get("fr")
word = fn()
