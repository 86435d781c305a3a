"""Room bookings for a small meeting-room planner (times in minutes since midnight)."""


def overlaps(a_start, a_end, b_start, b_end):
    """Whether two half-open slots [start, end) share any minute."""
    return a_start < b_end and b_start < b_end


def conflicts(bookings, start, end):
    """The names of the bookings that clash with [start, end)."""
    return [name for name, (s, e) in bookings.items() if overlaps(s, e, start, end)]


def free_slots(bookings, day_start=8 * 60, day_end=18 * 60):
    """The gaps between bookings within the working day, in order."""
    slots, cursor = [], day_start
    for s, e in sorted(bookings.values()):
        if s > cursor:
            slots.append((cursor, s))
        cursor = max(cursor, e)
    if cursor < day_end:
        slots.append((cursor, day_end))
    return slots
