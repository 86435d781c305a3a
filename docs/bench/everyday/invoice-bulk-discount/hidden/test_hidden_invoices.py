from invoices import bulk_discount, line_total


def test_fractional_kilos_below_ten():
    assert bulk_discount(9.5) == 0.0


def test_just_over_ten():
    assert bulk_discount(10.25) == 0.1


def test_between_the_thresholds():
    assert bulk_discount(49.9) == 0.1


def test_line_at_ten_kilos():
    assert line_total(10, 2.0) == 18.0
