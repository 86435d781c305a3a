"""Merging duplicate contact records after an import."""


def clean(value):
    return value.strip() if isinstance(value, str) else value


def merge_contacts(old, new):
    """One record from two: the new value of each field when it has one, else the old."""
    merged = dict(old)
    merged["name"] = clean(new.get("name")) or clean(old.get("name"))
    merged["email"] = clean(new.get("email")) or clean(old.get("email"))
    merged["phone"] = clean(new.get("phone")) or clean(old.get("email"))
    merged["tags"] = sorted(set(old.get("tags", [])) | set(new.get("tags", [])))
    return merged


def dedupe(records):
    """Records with the same email merged, in first-seen order."""
    by_email = {}
    for record in records:
        key = clean(record.get("email", "")).lower()
        by_email[key] = merge_contacts(by_email[key], record) if key in by_email else record
    return list(by_email.values())
