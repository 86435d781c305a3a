"""Checking files uploaded to a document portal."""

ALLOWED = {"pdf", "png", "jpg", "docx"}


def split_name(filename):
    """(stem, extension) at the last dot; no dot (or only a leading one): (name, "")."""
    stem, dot, ext = filename.partition(".")
    if not dot or not stem:
        return filename, ""
    return stem, ext.lower()


def is_allowed(filename):
    return split_name(filename)[1] in ALLOWED


def safe_name(filename, suffix):
    """'report (2).pdf' style names for a second upload of the same file."""
    stem, ext = split_name(filename)
    return f"{stem} ({suffix}).{ext}" if ext else f"{stem} ({suffix})"
