"""The edit search at the places outside a function's body where real fixes go (issue 53): the
test process sets a candidate's constant, class attribute and default values for its own tests
and restores them after."""

from __future__ import annotations

from pathlib import Path

from selfdebug.server.engine.target import locate
from selfdebug.server.runner import ProjectRunner, RunnerSettings
from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner


def _project(root: Path, name: str, code: str, tests: str) -> Path:
    root.mkdir()
    (root / f"{name}.py").write_text(code, encoding="utf-8")
    (root / f"test_{name}.py").write_text(tests, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def test_the_test_process_sets_each_change_and_restores_it_after(tmp_path):
    """A candidate's constant, class attribute and default values hold for its own tests only:
    the unchanged function judged after them fails as the original does."""
    code = """LIMIT = 1


class Box:
    SIZE = 1

    def fits(self, n, extra=0):
        return n <= LIMIT + self.SIZE + extra
"""
    tests = """from box import Box


def test_fits():
    assert Box().fits(5)
"""
    root = _project(tmp_path / "box", "box", code, tests)
    target = locate(code, "Box.fits")
    first = target.start_line + 1
    with_default = target.code.replace("extra=0", "extra=3")
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "box.py", "Box.fits", code, first)
        judged = searcher.judge(
            [
                CandidateCode(0, target.code, first, (("", "LIMIT = 4"),)),
                CandidateCode(1, target.code, first),
                CandidateCode(2, target.code, first, (("Box", "SIZE = 4"),)),
                CandidateCode(3, target.code, first),
                CandidateCode(4, with_default, first, defaults=True),
                CandidateCode(5, target.code, first),
                CandidateCode(6, target.code, first, (("Nowhere", "SIZE = 4"),)),
            ],
            ["test_box.py::test_fits"],
            [],
        )
    outcome = {i: v.outcomes.get("test_box.py::test_fits") for i, v in judged.verdicts.items()}
    assert outcome == {0: "passed", 1: "failed", 2: "passed", 3: "failed", 4: "passed",
                       5: "failed", 6: None}  # fmt: skip
    assert "no class Nowhere" in judged.verdicts[6].problem
