"""Geometry helpers for a diagram editor (y grows downwards)."""

from collections import namedtuple

Box = namedtuple("Box", "left top width height")


def bounding_box(points):
    """The smallest box holding every (x, y) point."""
    if not points:
        raise ValueError("no points")
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    left, top = min(xs), min(ys)
    right, bottom = max(xs), max(ys)
    return Box(left, top, right - left, bottom - left)


def area(box):
    return box.width * box.height


def contains(box, point):
    x, y = point
    return box.left <= x <= box.left + box.width and box.top <= y <= box.top + box.height
