from billsplit import split_cents


def test_shares_add_up():
    for total in (200, 1001, 999, 7):
        for people in (2, 3, 4, 6):
            shares = split_cents(total, people)
            assert sum(shares) == total
            assert all(isinstance(s, int) for s in shares)


def test_two_thirds_round_up_case():
    assert split_cents(200, 3) == [67, 67, 66]
