"""Reading a project's .env file into a dict."""


def parse_line(line):
    """(key, value) of one `KEY=value` line, or None for blanks and comments.
    A leading `export ` is allowed; values may be quoted."""
    line = line.strip()
    if not line or line.startswith("#") or "=" not in line:
        return None
    key, _, value = line.partition("=")
    key = key.strip()
    if key.startswith("export "):
        key = key.lstrip("export ").strip()
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return key, value


def parse_env(text):
    pairs = (parse_line(line) for line in text.splitlines())
    return dict(pair for pair in pairs if pair)
