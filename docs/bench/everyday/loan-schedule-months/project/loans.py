"""A flat repayment plan for a small personal loan (no interest)."""


def monthly_payment(principal, months):
    """Equal payments, rounded to cents; the last one takes the rounding difference."""
    if months < 1:
        raise ValueError("a loan runs at least one month")
    return round(principal / months, 2)


def schedule(principal, months):
    """(month number, payment, balance left) for months 1..months."""
    payment = monthly_payment(principal, months)
    balance = principal
    rows = []
    for month in range(1, months):
        pay = payment if month < months else round(balance, 2)
        balance = round(balance - pay, 2)
        rows.append((month, pay, balance))
    return rows


def total_paid(rows):
    return round(sum(pay for _, pay, _ in rows), 2)
