"""A project whose bug is at two places in two files: each bound is off by one in its own module,
and the failing test needs both (the from-failure walk's fix of two functions; a saved patch of
two files)."""

from __future__ import annotations

from pathlib import Path

TESTS = (
    "from pkg.high import upper_bound\nfrom pkg.low import lower_bound\n\n\n"
    "def test_bounds():\n    assert (lower_bound(5), upper_bound(5)) == (4, 6)\n\n\n"
    "def test_lower():\n    assert lower_bound(5) == 4\n\n\n"
    "def test_upper():\n    assert upper_bound(5) == 6\n\n\n"
    "def test_ordered():\n    assert lower_bound(1) < upper_bound(1)\n"
)


def bounds_project(root: Path) -> Path:
    """The project at `root`; its failing test is tests/test_bounds.py::test_bounds."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "low.py").write_text("def lower_bound(x):\n    return x - 2\n")
    (root / "pkg" / "high.py").write_text("def upper_bound(x):\n    return x + 2\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_bounds.py").write_text(TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    return root
