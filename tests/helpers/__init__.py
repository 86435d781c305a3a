"""Reusable test helpers (import as `from helpers.<module> import ...`; tests/ is on sys.path)."""
