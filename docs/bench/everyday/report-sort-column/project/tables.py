"""Sorting and printing rows for a command-line report."""

from operator import itemgetter


def sort_rows(rows, column=None, descending=False):
    """Rows sorted by `column` (an index, or a key for dict rows); as given when None."""
    if column:
        rows = sorted(rows, key=itemgetter(column), reverse=descending)
    return list(rows)


def render(rows, widths):
    """Fixed-width lines for the terminal."""
    lines = []
    for row in rows:
        cells = row.values() if isinstance(row, dict) else row
        lines.append(" ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip())
    return lines


def column_widths(rows):
    """The widest cell of each column, for `render`."""
    cells = [list(r.values()) if isinstance(r, dict) else list(r) for r in rows]
    return [max(len(str(c)) for c in column) for column in zip(*cells)]
