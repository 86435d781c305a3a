"""Contact cards for a small CRM."""


def full_name(person):
    parts = [person.get("first"), person.get("last")]
    return " ".join(p for p in parts if p)


def display_name(person):
    """'Ada L.' in lists; just the first name when there is no last name."""
    first = person.get("first", "")
    last = person.get("last")
    return f"{first} {last[0].upper()}."


def initials(person):
    return "".join(p[0].upper() for p in full_name(person).split())


def sort_key(person):
    """Contacts sort by last name, then first name, case-insensitively."""
    return ((person.get("last") or "").lower(), (person.get("first") or "").lower())
