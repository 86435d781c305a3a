"""Stock levels for a small shop's inventory sheet."""

DEFAULT_REORDER_LEVEL = 5


def reorder_level(item):
    """The item's own reorder level; the default when it has none (None or missing).
    A level of 0 means: never reorder (discontinued items)."""
    level = item.get("reorder_at")
    if not level:
        level = DEFAULT_REORDER_LEVEL
    return level


def needs_restock(item):
    return item["stock"] < reorder_level(item)


def restock_list(items):
    """Names of the items to reorder, sorted."""
    return sorted(item["name"] for item in items if needs_restock(item))
