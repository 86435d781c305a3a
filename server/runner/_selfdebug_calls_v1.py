"""selfdebug call-finder plugin v1: which tests execute one function (test discovery).

Loaded with `-p _selfdebug_calls_v1 --selfdebug-job=JOB.json` next to our result plugin, in the
project's interpreter (standard library and pytest only; imports nothing of ours). The job names
the function by where it is defined: its file (in the shadow copy, and the user's path in case
an install points there), its name and the lines of its definition; the code defined inside it
(a decorator's wrapper, a nested helper) counts as it. pytest runs the tests as it
always does; while each test runs (setup, call and teardown: a fixture that calls the function
counts), only the START of Python functions is watched, and a start of the target's code counts
for that test. The target's module need not be imported beforehand (a test may import it late).

- Python 3.12+: sys.monitoring PY_START events; every other function's code is switched off at
  its first start (DISABLE), so the tests run at full speed after that.
- Before: a global trace function that sees each call once and never traces lines.

After each test that ran the target, one event `{"event": "calls", "nodeid", "count"}` goes to the
result stream (SELFDEBUG_RESULT_STREAM), so the counts of the tests that finished survive a kill.
"""

import json
import os
import sys
import threading
from typing import Any  # noqa: F401 (the type comments below)

import pytest

STREAM_ENV = "SELFDEBUG_RESULT_STREAM"
TOOL_NAME = "selfdebug-calls"
_MONITORING = getattr(sys, "monitoring", None)  # type: Any  # 3.12+
_state = {"job": None, "stream": None, "current": None, "count": 0, "tool": None}  # type: Any
# id(code object) -> (the code object, whether it is the target's). Not keyed by the code object:
# code objects compare equal across files (the same function at the same line in a.py and b.py,
# or a CRLF copy of a module: `==` and `hash` ignore co_filename), so one file's answer would be
# handed to the other. The code object is held so that its id is not reused.
_matches = {}  # type: dict


def pytest_addoption(parser):
    parser.addoption("--selfdebug-job", default="", help="selfdebug call-finder job (JSON)")


def pytest_configure(config):
    path = config.getoption("--selfdebug-job")
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        job = json.load(handle)
    job["files"] = {os.path.realpath(f) for f in job["files"]}
    _state["job"] = job
    stream = os.environ.get(STREAM_ENV)
    if stream:
        _state["stream"] = open(stream, "a", encoding="utf-8")  # noqa: SIM115 (session-long)
    _start()


def pytest_unconfigure(config):
    if _state["job"] is not None:
        _stop()


def _emit(event):
    stream = _state["stream"]
    if stream is not None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()


def _is_target(code):
    known = _matches.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    job = _state["job"]
    line = code.co_firstlineno
    found = (
        (code.co_name == job["name"] and job["first"] <= line <= job["last"])
        or job["last"] < line <= job.get("end", 0)  # defined inside it: a wrapper, a helper
    ) and os.path.realpath(code.co_filename) in job["files"]
    _matches[id(code)] = (code, found)
    return found


def _count():
    if _state["current"] is not None:
        _state["count"] += 1


# -- watching function starts ---------------------------------------------------------------------
def _on_start(code, offset):
    if _is_target(code):
        _count()
        return None
    return _MONITORING.DISABLE


def _tracer(frame, event, arg):
    if event == "call" and _is_target(frame.f_code):
        _count()
    return None  # never trace lines


def _start():
    monitoring = _MONITORING
    if monitoring is not None:
        tool = next((t for t in range(2, 6) if monitoring.get_tool(t) is None), None)
        if tool is not None:
            monitoring.use_tool_id(tool, TOOL_NAME)
            monitoring.register_callback(tool, monitoring.events.PY_START, _on_start)
            monitoring.set_events(tool, monitoring.events.PY_START)
            _state["tool"] = tool
            return
    sys.settrace(_tracer)
    threading.settrace(_tracer)


def _stop():
    tool = _state["tool"]
    if tool is not None:
        _MONITORING.set_events(tool, 0)
        _MONITORING.register_callback(tool, _MONITORING.events.PY_START, None)
        _MONITORING.free_tool_id(tool)
        _state["tool"] = None
    else:
        sys.settrace(None)
        threading.settrace(None)


# -- per test -------------------------------------------------------------------------------------
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _state["job"] is None:
        yield
        return
    if _state["tool"] is None and sys.gettrace() is not _tracer:
        sys.settrace(_tracer)  # something (a debugger, a plugin) replaced it: take it back
    _state["current"], _state["count"] = item.nodeid, 0
    yield
    count, _state["current"] = _state["count"], None
    if count:
        _emit({"event": "calls", "nodeid": item.nodeid, "count": count})
