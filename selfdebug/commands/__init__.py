"""See docs/ARCHITECTURE.md."""
