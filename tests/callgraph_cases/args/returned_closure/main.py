def make_adder(n):
    def add(x):
        return x + n

    return add


add5 = make_adder(5)
add5(10)
