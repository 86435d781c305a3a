"""Word statistics for a blog's tag cloud."""

import re

WORD = re.compile(r"[a-z']+")


def words(text):
    return WORD.findall(text.lower())


def tally(items, counts={}):
    """Count each item; adds to `counts` (updated in place) when one is given."""
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def top(counts, n=3):
    """The n most frequent items, ties alphabetically."""
    return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def tag_cloud(posts, n=3):
    return top(tally(w for post in posts for w in words(post)), n)
