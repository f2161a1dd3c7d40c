def greet():
    return "hello"


say = greet
say()
