"""Tags typed by users on a recipe site ("Vegan, quick , Dessert")."""


def normalize_tags(raw):
    """Comma-separated tags, trimmed, lower-cased, without blanks or repeats, in order."""
    tags = []
    for tag in raw.split(","):
        tag.strip().lower()
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def tag_line(tags):
    return " ".join(f"#{tag.replace(' ', '-')}" for tag in tags)


def common_tags(recipes):
    """Tags every recipe has, sorted."""
    sets = [set(normalize_tags(r)) for r in recipes]
    return sorted(set.intersection(*sets)) if sets else []
