"""selfdebug pytest plugin v1: stream every test's structured result as JSON lines.

Loaded with `-p _selfdebug_pytest_plugin_v1` in the project's interpreter, so it imports only the
standard library and pytest. Each line is written and flushed as soon as it is known, so the
results of finished tests survive when the process is killed. It also tells the probe runtime
which test is running (env SELFDEBUG_PROBE_TEST) and marks each test's start on the real stdout,
so the runner can attribute the last output of a test it had to kill.
"""

import json
import os
import sys
import traceback

import pytest

STREAM_ENV = "SELFDEBUG_RESULT_STREAM"
PROBE_TEST_ENV = "SELFDEBUG_PROBE_TEST"
START_MARKER = "\x1e[selfdebug:start] "
REPR_CAP = 2000
MESSAGE_CAP = 4000

_stream = None
_rootdir = ""
_last_compare = {}  # type: dict
_failures = {}  # type: dict  # nodeid -> details of the first failing phase
_phases = {}  # type: dict  # nodeid -> {when: report}
_INTERNAL = (os.sep + "_pytest" + os.sep, os.sep + "pluggy" + os.sep, "pytest_timeout.py")


def _emit(event):
    if _stream is None:
        return
    _stream.write(json.dumps(event, default=repr) + "\n")
    _stream.flush()


def _bounded_repr(value):
    try:
        text = repr(value)
    except Exception as error:  # a broken __repr__ must not hide the failure
        text = f"<repr failed: {type(error).__name__}>"
    if len(text) > REPR_CAP:
        text = text[:REPR_CAP] + "...[truncated]"
    return text


def _frames(tb):
    frames = []
    for summary in traceback.extract_tb(tb):
        filename = summary.filename
        if any(part in filename for part in _INTERNAL) or filename == __file__:
            continue
        frames.append(
            {
                "path": filename,
                "line": summary.lineno or 0,
                "function": summary.name,
                "code": (summary.line or "").strip(),
            }
        )
    # Start at the first frame in the project: earlier ones are pytest plugins' hook wrappers.
    inside = [i for i, f in enumerate(frames) if _rootdir and str(f["path"]).startswith(_rootdir)]
    return frames[inside[0] :] if inside else frames


def _error_line(exc, path):
    """Where in `path` an exception (or the error that caused it) points: (file, line)."""
    cause = exc.__cause__ or exc
    if isinstance(cause, SyntaxError) and cause.filename:
        return cause.filename, cause.lineno or 0, cause
    best = (str(path), 0)
    for summary in traceback.extract_tb(cause.__traceback__):
        if summary.filename == str(path):
            best = (summary.filename, summary.lineno or 0)
    return best[0], best[1], cause


def _first_lines(text, cap=MESSAGE_CAP):
    text = str(text)
    return text if len(text) <= cap else text[:cap] + "...[truncated]"


# -- imports must find the shadow copy, not the user's tree ---------------------------------------
def _redirect(path, user_root, shadow_root):
    """`path` in the copy when it is under the user's tree and the copy has it. What the copy
    leaves out stays where it is: the project's own virtualenv (`.venv/lib/.../site-packages`,
    with the project's test dependencies and pytest plugins), build outputs."""
    if isinstance(path, str) and (path == user_root or path.startswith(user_root + os.sep)):
        copied = shadow_root + path[len(user_root) :]
        if os.path.exists(copied):
            return copied
    return path


def _redirect_editable_installs(user_root, shadow_root):
    """An editable install of the project (`pip install -e .`) maps its packages to the user's
    tree; point those mappings at the copy so that overrides and fixes are what gets imported.
    Handles setuptools' finder (MAPPING/NAMESPACES), `editables` (_redirections) and path .pth
    entries on sys.path; paths the copy does not have (a virtualenv inside the project) are
    kept."""
    for finder in list(sys.meta_path):
        holders = [finder, sys.modules.get(getattr(finder, "__module__", "") or "")]
        for holder in holders:
            for attribute in ("MAPPING", "NAMESPACES", "_redirections"):
                table = getattr(holder, attribute, None)
                if not isinstance(table, dict):
                    continue
                for key, value in list(table.items()):
                    if isinstance(value, list):
                        table[key] = [_redirect(v, user_root, shadow_root) for v in value]
                    else:
                        table[key] = _redirect(value, user_root, shadow_root)
    sys.path[:] = [_redirect(entry, user_root, shadow_root) for entry in sys.path]
    sys.path_importer_cache.clear()


if os.environ.get("SELFDEBUG_USER_ROOT") and os.environ.get("SELFDEBUG_SHADOW_ROOT"):
    _redirect_editable_installs(
        os.environ["SELFDEBUG_USER_ROOT"].rstrip(os.sep),
        os.environ["SELFDEBUG_SHADOW_ROOT"].rstrip(os.sep),
    )


# -- session -------------------------------------------------------------------------------------
def pytest_configure(config):
    global _stream, _rootdir
    _rootdir = str(config.rootpath) + os.sep
    path = os.environ.get(STREAM_ENV)
    if path and _stream is None:
        _stream = open(path, "a", encoding="utf-8")  # noqa: SIM115 (open for the session)
        _emit({"event": "configure", "pid": os.getpid(), "rootdir": str(config.rootpath)})


def pytest_collection_finish(session):
    items = []
    for item in session.items:
        _path, line, domain = item.location
        items.append(
            {
                "nodeid": item.nodeid,
                "path": str(item.path),
                "line": (line or 0) + 1,
                "domain": domain,
            }
        )
    _emit({"event": "collected", "items": items})


def pytest_exception_interact(node, call, report):
    if report.when != "collect" or call.excinfo is None:
        return
    path = getattr(node, "path", "")
    file, line, cause = _error_line(call.excinfo.value, path)
    _emit(
        {
            "event": "collect_error",
            "nodeid": report.nodeid,
            "path": file,
            "line": line,
            "exc_type": type(cause).__name__,
            "message": _first_lines(cause if not isinstance(cause, SyntaxError) else cause.msg),
            "longrepr": _first_lines(report.longreprtext, 20000),
        }
    )


def pytest_collectreport(report):
    if report.failed:
        _emit(
            {
                "event": "collect_failed",
                "nodeid": report.nodeid,
                "longrepr": _first_lines(report.longreprtext, 20000),
            }
        )


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    _emit({"event": "finish", "exitstatus": int(exitstatus)})


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # Everything pytest does is over; the runner may stop the process now instead of waiting
    # for the interpreter's own shutdown.
    _emit({"event": "unconfigured"})


# -- each test -----------------------------------------------------------------------------------
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logstart(nodeid, location):
    os.environ[PROBE_TEST_ENV] = nodeid
    _phases[nodeid] = {}
    _emit({"event": "start", "nodeid": nodeid})
    try:
        sys.stdout.flush()
        os.write(1, ("\n" + START_MARKER + nodeid + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    _last_compare.clear()


def pytest_assertrepr_compare(config, op, left, right):
    # Record the operands of the failing comparison; return None so pytest still explains it.
    _last_compare["value"] = (op, _bounded_repr(left), _bounded_repr(right))
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.excinfo is None or item.nodeid in _failures:
        return
    exc = call.excinfo.value
    exc_type = type(exc).__name__
    message = _first_lines(exc)
    timed_out = exc_type == "Failed" and message.startswith("Timeout")
    module = type(exc).__module__
    details = {
        "when": call.when,
        "exc_type": "Timeout" if timed_out else exc_type,
        "exc_module": "" if timed_out or module == "builtins" else module,
        "message": message,
        "frames": _frames(call.excinfo.tb),
        "timeout": timed_out,
    }
    if isinstance(exc, AssertionError) and "value" in _last_compare and call.when == "call":
        op, left, right = _last_compare["value"]
        details.update(assert_op=op, assert_left=left, assert_right=right)
    _failures[item.nodeid] = details


def pytest_runtest_logreport(report):
    phases = _phases.setdefault(report.nodeid, {})
    phases[report.when] = report
    if report.when != "teardown":
        return
    setup, call, teardown = phases.get("setup"), phases.get("call"), phases.get("teardown")
    failure = _failures.pop(report.nodeid, {})
    longrepr = ""
    if setup is not None and setup.failed:
        outcome, longrepr = "error", setup.longreprtext
    elif setup is not None and setup.skipped:
        outcome, longrepr = "skipped", setup.longreprtext
    elif call is not None and call.failed:
        outcome, longrepr = "failed", call.longreprtext
    elif call is not None and call.skipped:
        outcome, longrepr = "skipped", call.longreprtext
    elif teardown.failed:
        outcome, longrepr = "error", teardown.longreprtext
    else:
        outcome = "passed"
    if failure.get("timeout") and outcome in ("failed", "error"):
        outcome = "timeout"
    _emit(
        {
            "event": "result",
            "nodeid": report.nodeid,
            "outcome": outcome,
            "duration": sum(r.duration for r in phases.values()),
            "exc_type": failure.get("exc_type", ""),
            "exc_module": failure.get("exc_module", ""),
            "message": failure.get("message", ""),
            "assert_op": failure.get("assert_op"),
            "assert_left": failure.get("assert_left"),
            "assert_right": failure.get("assert_right"),
            "frames": failure.get("frames", []),
            "stdout": report.capstdout,
            "stderr": report.capstderr,
            "longrepr": longrepr if outcome != "passed" else "",
        }
    )
    _phases.pop(report.nodeid, None)
