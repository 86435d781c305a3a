from accounts import SavingsAccount


def test_interest_compounds():
    acct = SavingsAccount("kim", 100.0, rate=0.1)
    acct.apply_interest()
    assert acct.apply_interest() == 11.0


def test_after_withdrawal():
    acct = SavingsAccount("kim", 1000.0)
    acct.withdraw(400.0)
    assert acct.apply_interest() == 12.0
