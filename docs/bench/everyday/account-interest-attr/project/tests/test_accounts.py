import pytest

from accounts import SavingsAccount


def test_interest_on_opening_balance():
    acct = SavingsAccount("kim", 1000.0)
    assert acct.apply_interest() == 20.0


def test_interest_on_current_balance():
    acct = SavingsAccount("kim", 1000.0)
    acct.deposit(500.0)
    assert acct.apply_interest() == 30.0
    assert acct.balance == 1530.0


def test_overdraw():
    with pytest.raises(ValueError):
        SavingsAccount("lee", 10.0).withdraw(20.0)
