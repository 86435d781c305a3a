from invoices import bulk_discount, invoice_total, line_total


def test_bulk_discount_thresholds():
    assert bulk_discount(9) == 0.0
    assert bulk_discount(10) == 0.1
    assert bulk_discount(50) == 0.2


def test_line_total():
    assert line_total(2, 3.5) == 7.0


def test_invoice_total():
    assert invoice_total([(1, 10.0)]) == 12.0
