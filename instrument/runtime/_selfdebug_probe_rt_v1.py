"""Side channel for selfdebug probes; runs inside the USER's interpreter.

This file is standalone on purpose: the code selfdebug inserts into a function imports it by this
unique name from a folder the runner puts on PYTHONPATH, where the selfdebug package itself is not
installed. Standard library only. Nothing here may raise into user code or write to stdout.

Records are JSON lines appended to the file named by SELFDEBUG_PROBE_LOG:
    {"probe": "3", "line": 12, "kind": "loop", "values": {"i": "4"}, "test": "...", "text": ""}
Without SELFDEBUG_PROBE_LOG every entry point returns at once (and `watch` leaves the function
untouched). Caps: SELFDEBUG_PROBE_MAX_HITS records per (test, probe) and SELFDEBUG_PROBE_MAX_BYTES
in all; the first time a cap drops records one {"truncated": true, ...} line says so.
"""

import functools
import inspect
import io
import json
import linecache
import os
import reprlib
import sys
import threading

MARKER = "# selfdebug-probe"  # ends every line selfdebug inserted (see selfdebug.instrument)
REPR_LIMIT = 200

_log_path = os.environ.get("SELFDEBUG_PROBE_LOG") or ""
enabled = bool(_log_path)


def _env_int(name, default):
    try:
        return max(1, int(os.environ.get(name, "")))
    except ValueError:
        return default


_max_hits = _env_int("SELFDEBUG_PROBE_MAX_HITS", 50)
_max_bytes = _env_int("SELFDEBUG_PROBE_MAX_BYTES", 256 * 1024)
_lock = threading.RLock()
_local = threading.local()  # .busy: a repr inside a probe called back into a probe
_fd = None
_written = 0
_hits: dict = {}  # (test, probe id) -> records written
_hit_marked: set = set()  # (test, probe id) whose cap was already reported
_closed = False  # the byte cap was reached: nothing more is written
_repr = reprlib.Repr()
_repr.maxstring = REPR_LIMIT
_repr.maxother = REPR_LIMIT
_repr.maxlevel = 3


def _safe_repr(value):
    try:
        text = _repr.repr(value)
    except BaseException as error:  # a user __repr__ may raise anything
        try:
            text = f"<repr failed: {type(error).__name__}>"
        except BaseException:
            text = "<repr failed>"
    if not isinstance(text, str):
        text = "<repr returned a non-string>"
    if len(text) > REPR_LIMIT:
        text = text[: REPR_LIMIT - 3] + "..."
    return text


def _write_line(obj):
    """Append one JSON line; returns False when the byte cap closed the log."""
    global _fd, _written, _closed
    if _closed:
        return False
    line = (json.dumps(obj, ensure_ascii=True) + "\n").encode("ascii")
    if _fd is None:
        _fd = os.open(_log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    if _written + len(line) > _max_bytes:
        _closed = True
        marker = {"truncated": True, "reason": "max_bytes", "test": obj.get("test", "")}
        os.write(_fd, (json.dumps(marker) + "\n").encode("ascii"))
        return False
    os.write(_fd, line)  # O_APPEND + one write per line: whole lines even across processes
    _written += len(line)
    return True


def _admit(probe_id, line):
    """Count a hit; the current test's name when it may be recorded, else None (capped)."""
    if _closed:
        return None
    test = os.environ.get("SELFDEBUG_PROBE_TEST", "")
    key = (test, probe_id)
    count = _hits.get(key, 0)
    if count < _max_hits:
        _hits[key] = count + 1
        return test
    if key not in _hit_marked:
        _hit_marked.add(key)
        marker = {"truncated": True, "reason": "max_hits", "probe": str(probe_id), "line": line}
        _write_line(dict(marker, test=test))
    return None


def _record(probe_id, line, kind, values_of, text=""):
    """Write one record; `values_of()` builds the values only when the record is admitted."""
    test = _admit(probe_id, line)
    if test is None:
        return
    _write_line(
        {
            "probe": str(probe_id),
            "line": line,
            "kind": kind,
            "values": values_of(),
            "test": test,
            "text": text() if callable(text) else text,
        }
    )


def _guarded(fn):
    """Run a probe body under the lock, never re-entering and never raising."""

    @functools.wraps(fn)
    def run(*args):
        if getattr(_local, "busy", False):
            return
        _local.busy = True
        try:
            with _lock:
                fn(*args)
        except BaseException:
            pass
        finally:
            _local.busy = False

    return run


def _lookup(frame, names):
    code = frame.f_code
    own = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
    local_values = frame.f_locals
    values = {}
    for name in names:
        stored = name
        if name not in local_values and name.startswith("__") and not name.endswith("__"):
            # a class-private name: inside a method the compiler stores it as _Class__name
            stored = next((k for k in local_values if k.endswith(name) and k[:1] == "_"), name)
        if stored in local_values:
            values[name] = _safe_repr(local_values[stored])
        elif name not in own and name in frame.f_globals:  # declared `global`
            values[name] = _safe_repr(frame.f_globals[name])
        else:
            values[name] = "<unbound>"
    return values


@_guarded
def _hit(frame, probe_id, line, kind, names, label):
    def values():
        found = {}
        if label:  # which branch: first, under the kind's name unless a variable has it
            found[kind if kind not in names else "<" + kind + ">"] = label
        found.update(_lookup(frame, names))
        return found

    _record(probe_id, line, kind, values)


def hit(probe_id, line, kind, names=(), label=""):
    """A probe at a line: record the named local variables of the caller."""
    if enabled:
        _hit(sys._getframe(1), probe_id, line, kind, names, label)


@_guarded
def _ret(probe_id, line, value):
    _record(probe_id, line, "return", lambda: {"return": _safe_repr(value)})


def ret(probe_id, line, value, _marker=None):
    """Wraps a `return` value: records it and gives it back (evaluated once, by the caller)."""
    if enabled:
        _ret(probe_id, line, value)
    return value


@_guarded
def _print(probe_id, line, args, sep, end):
    def text():
        buffer = io.StringIO()
        print(*args, sep=sep, end=end, file=buffer)
        return buffer.getvalue()

    _record(probe_id, line, "print", dict, text)


def print_(probe_id, line, *args, sep=" ", end="\n", file=None, flush=False):
    """A model-written print(): its text goes to the side channel, never to stdout."""
    if enabled:
        _print(probe_id, line, args, sep, end)


def _original_line(filename, line):
    """Instrumented line -> line in the original file (inserted lines end with MARKER)."""
    inserted = 0
    for text in linecache.getlines(filename)[: line - 1]:
        if text.rstrip("\r\n").endswith(MARKER) and __name__ in text:
            inserted += 1
    return line - inserted


@_guarded
def _raised(probe_id, def_line, code, error):
    frame, lineno = None, def_line
    tb = error.__traceback__
    while tb is not None:  # the innermost frame of the probed function
        if tb.tb_frame.f_code is code:
            frame, lineno = tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next
    line = _original_line(code.co_filename, lineno) if frame is not None else def_line

    def values():
        found = {"exception": _safe_repr(error)}
        for name, value in frame.f_locals.items() if frame is not None else ():
            if name != __name__ and len(found) < 40:
                found[name] = _safe_repr(value)
        return found

    _record(probe_id, line, "raise", values)


def watch(probe_id, def_line):
    """Decorator placed innermost on the probed function: records an exception leaving it.

    Without a log it returns the function itself, so an unprobed run is the original program.
    Async generators are left alone (they cannot be proxied without changing their protocol).
    """

    def decorate(fn):
        if not enabled or not hasattr(fn, "__code__") or inspect.isasyncgenfunction(fn):
            return fn
        _allow_wrapper_frames()
        if inspect.iscoroutinefunction(fn):
            wrapper = _watch_coroutine(fn, probe_id, def_line)
        elif inspect.isgeneratorfunction(fn):
            wrapper = _watch_generator(fn, probe_id, def_line)
        else:
            wrapper = _watch_plain(fn, probe_id, def_line)
        return functools.wraps(fn)(wrapper)

    return decorate


_recursion_raised = False


def _allow_wrapper_frames():
    """The wrapper doubles the frames of every call, so recursion that works unprobed would hit
    RecursionError only under probes: double the limit once, in probed runs only."""
    global _recursion_raised
    if _recursion_raised:
        return
    _recursion_raised = True
    try:
        sys.setrecursionlimit(sys.getrecursionlimit() * 2)
    except (ValueError, RecursionError):
        pass


def _watch_plain(fn, probe_id, def_line):
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BaseException as error:
            _raised(probe_id, def_line, fn.__code__, error)
            raise

    return wrapper


def _watch_generator(fn, probe_id, def_line):
    def wrapper(*args, **kwargs):
        try:
            return (yield from fn(*args, **kwargs))
        except GeneratorExit:
            raise
        except BaseException as error:
            _raised(probe_id, def_line, fn.__code__, error)
            raise

    return wrapper


def _watch_coroutine(fn, probe_id, def_line):
    async def wrapper(*args, **kwargs):
        try:
            return await fn(*args, **kwargs)
        except BaseException as error:
            _raised(probe_id, def_line, fn.__code__, error)
            raise

    return wrapper
