"""selfdebug spectrum plugin v1: which lines of the project's own code each test runs.

Loaded with `-p _selfdebug_spectrum_v1 --selfdebug-job=JOB.json` in the project's interpreter
(standard library and pytest only; imports nothing of ours). During each test's call phase a
trace function records the lines run in the project's source files (under pytest's rootdir; not
test files, conftest.py, virtualenvs or site-packages); when the test ends, one
`spectrum_test` event gives its outcome and those lines per file (paths relative to the
rootdir). Code pytest runs to describe a failed assertion (the compared objects' `repr`) is not
traced, and the test sees `sys.gettrace()` as it was before the trace started. The engine
ranks the project's functions by them when a session starts from a failing test
(server/engine/suspects/).

Every event goes to the same JSON-lines stream as our result plugin's (SELFDEBUG_RESULT_STREAM).
"""

import json
import os
import sys
from typing import Any  # noqa: F401 (the type comment below)

import pytest

STREAM_ENV = "SELFDEBUG_RESULT_STREAM"
_state = {
    "job": None,  # the job (JSON) when this plugin was asked for
    "stream": None,
    "root": "",  # pytest's rootdir, real path
    "wanted": {},  # code file name -> its path relative to the root, or None (not ours)
    "lines": None,  # the running test's lines: {relative path: set of lines}
    "outcome": {},  # nodeid -> outcome
}  # type: dict[str, Any]
_SKIP_PARTS = ("site-packages", "dist-packages", ".venv", "venv", ".tox", ".nox", "__pycache__")


def pytest_addoption(parser):
    parser.addoption("--selfdebug-job", default="", help="selfdebug spectrum job (JSON)")


def pytest_configure(config):
    path = config.getoption("--selfdebug-job")
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        _state["job"] = json.load(handle)
    _state["root"] = os.path.realpath(str(config.rootpath))
    stream = os.environ.get(STREAM_ENV)
    if stream:
        _state["stream"] = open(stream, "a", encoding="utf-8")  # noqa: SIM115 (the session's)


def _emit(event):
    stream = _state["stream"]
    if stream is not None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()


def _project_file(filename):
    """The file's path relative to the rootdir when it is the project's own source, else None
    (cached per file name: this runs for every new frame)."""
    wanted = _state["wanted"]
    if filename in wanted:
        return wanted[filename]
    relative = None
    if filename.endswith(".py") and not filename.startswith("<"):
        real = os.path.realpath(filename)
        root = _state["root"]
        if real.startswith(root + os.sep):
            candidate = real[len(root) + 1 :]
            parts = candidate.split(os.sep)
            name = parts[-1]
            test_file = name.startswith("test_") or name.endswith("_test.py")
            in_tests = any(p in ("tests", "test", "testing") for p in parts[:-1])
            skipped = any(p in _SKIP_PARTS for p in parts) or name == "conftest.py"
            if not (test_file or in_tests or skipped or "_selfdebug_" in name):
                relative = candidate.replace(os.sep, "/")
    wanted[filename] = relative
    return relative


def _describing_a_failure(frame):
    """Whether pytest called this frame to describe a failed assertion (its introspection
    calls `repr`, `__eq__` and the like on the compared objects): that is not the test's run."""
    caller = frame.f_back
    while caller is not None:
        name = caller.f_code.co_filename.replace(os.sep, "/")
        if "/_pytest/assertion/" in name or "/_pytest/_io/" in name:
            return True
        caller = caller.f_back
    return False


def _global_trace(frame, event, arg):
    relative = _project_file(frame.f_code.co_filename)
    if relative is None:
        return None
    lines = _state["lines"]
    if lines is None or _describing_a_failure(frame):
        return None
    found = lines.setdefault(relative, set())
    found.add(frame.f_lineno)

    def local(frame, event, arg):
        if event == "line":
            found.add(frame.f_lineno)
        return local

    return local


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if _state["job"] is None:
        yield
        return
    _state["lines"] = {}
    gettrace = sys.gettrace
    previous = gettrace()
    sys.settrace(_global_trace)
    sys.gettrace = lambda: previous  # the run must not look like a debugger's: code that
    # asks `sys.gettrace() is not None` (python-dotenv's find_dotenv) behaves as untraced
    try:
        yield
    finally:
        sys.gettrace = gettrace
        sys.settrace(previous)


def pytest_runtest_logreport(report):
    if _state["job"] is None:
        return
    outcome = _state["outcome"]
    if report.failed:
        outcome[report.nodeid] = "failed" if report.when == "call" else "error"
    elif report.skipped and report.nodeid not in outcome:
        outcome[report.nodeid] = "skipped"
    elif report.when == "call" and report.passed:
        outcome.setdefault(report.nodeid, "passed")


def pytest_runtest_logfinish(nodeid, location):
    if _state["job"] is None:
        return
    lines = _state["lines"] or {}
    _state["lines"] = None
    outcome = _state["outcome"].get(nodeid, "error")
    _emit({"event": "spectrum_test", "nodeid": nodeid, "outcome": outcome,
           "lines": {path: sorted(found) for path, found in lines.items()}})  # fmt: skip
