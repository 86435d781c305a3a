"""Paging through search results for a small web app."""

import math


def page_count(total, per_page):
    """How many pages `total` results fill (at least one, even when empty)."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return max(1, math.ceil(total / per_page))


def page_slice(items, page, per_page):
    """The items shown on `page` (1-based)."""
    if page < 1:
        raise ValueError("pages start at 1")
    start = (page - 1) * per_page
    return items[start:start + per_page - 1]


def page_label(total, page, per_page):
    """'Showing 11-20 of 45' for the page footer."""
    if total == 0:
        return "No results"
    first = (page - 1) * per_page + 1
    last = min(page * per_page, total)
    return f"Showing {first}-{last} of {total}"
