"""Order totals for a print-on-demand shop. Lines are dicts from the checkout form:
{"sku": str, "qty": int, "price": float, "discount": percent (optional)}."""


def line_total(line):
    gross = line["qty"] * line["price"]
    discount = line.get("discount_pct", 0)
    return round(gross * (100 - discount) / 100, 2)


def order_total(lines, shipping=0.0):
    return round(sum(line_total(line) for line in lines) + shipping, 2)


def summary(lines):
    """'3 items, 2 lines' for the basket badge."""
    items = sum(line["qty"] for line in lines)
    return f"{items} item{'s' if items != 1 else ''}, {len(lines)} line{'s' if len(lines) != 1 else ''}"


def biggest_line(lines):
    """The SKU of the most expensive line, or None for an empty order."""
    if not lines:
        return None
    return max(lines, key=line_total)["sku"]
