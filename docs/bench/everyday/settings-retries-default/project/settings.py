"""Settings of a backup tool, read from an INI-like dict of strings or numbers."""

from dataclasses import dataclass


@dataclass
class Settings:
    target: str
    retries: int
    verbose: bool


def parse_bool(value):
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "yes", "true", "on")


def load_settings(raw):
    """Settings from `raw`; `retries` defaults to 3, `verbose` to False; `target` is required."""
    if "target" not in raw:
        raise KeyError("target")
    return Settings(
        target=str(raw["target"]),
        retries=int(raw.get("retries", 0)),
        verbose=parse_bool(raw.get("verbose", False)),
    )
