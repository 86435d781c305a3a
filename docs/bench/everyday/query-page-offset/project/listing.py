"""Paging parameters of a JSON API, read from a parsed query string (values are text)."""

MAX_SIZE = 100


def page_size(params):
    size = int(params.get("size", 20))
    return max(1, min(size, MAX_SIZE))


def page_offset(params):
    """The offset of the first row of the requested page (pages start at 1)."""
    page = params.get("page", 1)
    if page < 1:
        raise ValueError("page must be at least 1")
    return (page - 1) * page_size(params)


def sql_limit(params):
    return f"LIMIT {page_size(params)} OFFSET {page_offset(params)}"
