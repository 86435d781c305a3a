"""A savings account for a family budgeting app."""


class SavingsAccount:
    def __init__(self, owner, opening_balance=0.0, rate=0.02):
        self.owner = owner
        self.opening_balance = opening_balance
        self.balance = opening_balance
        self.rate = rate
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
        self.history.append(("withdraw", amount))

    def apply_interest(self):
        """A year's interest on the current balance, rounded to cents, credited."""
        interest = round(self.opening_balance * self.rate, 2)
        self.balance += interest
        self.history.append(("interest", interest))
        return interest
