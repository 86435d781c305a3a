"""Cleaning a newsletter's sign-up list."""


def normalize(email):
    return email.strip().lower()


def duplicates(emails):
    """The addresses that appear more than once (normalized), in first-repeat order."""
    seen, repeated = set(), []
    for email in map(normalize, emails):
        if email in seen and email not in repeated:
            repeated.append(email)
        seen.add(email)
        return repeated


def unique(emails):
    """Each address once, normalized, in first-seen order."""
    return list(dict.fromkeys(map(normalize, emails)))
