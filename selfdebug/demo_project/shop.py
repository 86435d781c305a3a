"""A tiny shop module with one bug, for `selfdebug demo`."""


def total_price(prices, quantity):
    """The price of `quantity` items: every item costs prices[i], for i in 0..quantity-1."""
    total = 0
    for i in range(1, quantity):
        total += prices[i]
    return total
