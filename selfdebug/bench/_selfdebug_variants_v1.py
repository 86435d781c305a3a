"""Run pytest on several copies of one small project in one process: each test's outcome per copy.

Why: checking an everyday case (selfdebug/bench/everyday_check.py) runs its buggy project, its
right fix and its plausible fix; three interpreters would pay pytest's start three times. The
copies share module names, so each run ends by forgetting the modules imported from its copy
and restoring sys.path (as pytest's own `pytester` does for inline runs). Standard library and
pytest only; it imports nothing of ours.

Usage: python _selfdebug_variants_v1.py JOBS.json OUT.json, where JOBS is a list of
[root, [pytest arguments]] and OUT receives one {nodeid: outcome} per job, in order.
"""

import json
import os
import sys

import pytest


class _Outcomes:
    """PASSED / FAILED / ERROR / SKIPPED per node id, from pytest's own reports."""

    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.outcomes[report.nodeid] = "FAILED" if report.when == "call" else "ERROR"
        elif report.skipped:
            self.outcomes.setdefault(report.nodeid, "SKIPPED")
        elif report.when == "call":
            self.outcomes.setdefault(report.nodeid, "PASSED")

    def pytest_collectreport(self, report):
        if report.failed:
            self.outcomes[report.nodeid or "<collection>"] = "ERROR"


def _inside(module, root):
    file = getattr(module, "__file__", None) or ""
    return os.path.abspath(file).startswith(root + os.sep)


def run(root, args):
    root = os.path.abspath(root)
    path, cwd = list(sys.path), os.getcwd()
    plugin = _Outcomes()
    os.chdir(root)
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", *args], plugins=[plugin])
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        for name in [n for n, m in sys.modules.items() if _inside(m, root)]:
            del sys.modules[name]  # the copy's modules; pytest's own stay imported
    return plugin.outcomes


def main(argv):
    with open(argv[1], encoding="utf-8") as handle:
        jobs = json.load(handle)
    results = [run(root, args) for root, args in jobs]
    with open(argv[2], "w", encoding="utf-8") as handle:
        json.dump(results, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
