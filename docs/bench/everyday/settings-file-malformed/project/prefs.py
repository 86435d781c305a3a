"""User preferences of a desktop note-taking app, kept in a JSON file."""

import json

DEFAULTS = {"theme": "light", "font_size": 12, "autosave": True}


def load_prefs(path):
    """The saved preferences over the defaults; the defaults alone when the file is missing
    or not valid JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            saved = json.load(handle)
    except FileNotFoundError:
        return dict(DEFAULTS)
    return {**DEFAULTS, **saved}


def save_prefs(path, prefs):
    changed = {k: v for k, v in prefs.items() if DEFAULTS.get(k) != v}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(changed, handle, indent=2, sort_keys=True)
