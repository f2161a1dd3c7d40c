def default_rate():
    return 5


class Account:
    rate = default_rate()

    def __init__(self, balance):
        self.balance = balance

    def interest(self):
        return self.balance * self.rate // 100


acct = Account(200)
print(acct.interest())
