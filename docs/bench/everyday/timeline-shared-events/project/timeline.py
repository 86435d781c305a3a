"""A project's timeline of events (for a team's status page)."""

from datetime import date


class Timeline:
    def __init__(self, name, events=[]):
        self.name = name
        self.events = events

    def add(self, day, text):
        self.events.append((day, text))
        self.events.sort()

    def between(self, start, end):
        """Events from `start` to `end`, both included."""
        return [(d, t) for d, t in self.events if start <= d <= end]

    def latest(self):
        return self.events[-1] if self.events else None


def merged(*timelines):
    """All events of several timelines in date order, each tagged with its timeline."""
    rows = [(d, tl.name, t) for tl in timelines for d, t in tl.events]
    return sorted(rows)


LAUNCH = date(2024, 3, 1)
