"""selfdebug judge plugin v1: a candidate fix and the reference fix side by side, call by call.

Loaded with `-p _selfdebug_judge_v1 --selfdebug-job=JOB.json` in the PROJECT's interpreter
(standard library and pytest only; imports nothing of ours). The job names the target function
(`file`, `qualname`), the reference fix's text of it (`reference`, column 0) and the candidate's
(`candidate`, to reuse its default values when they are written the same).

After collection (every test module imported, so every name the function is reachable by
exists) the target's `__code__` is swapped for a dispatcher, so each call, however the tests
reach the function, runs both versions:
- the reference on the caller's own arguments (its result or exception is what the caller gets:
  the suite goes on as upstream would), then the candidate on a deep copy taken before the call,
  under a CPU alarm; calls made while one version runs (recursion) go straight to that version;
- the two compared: both return, results equal and the arguments left equal; or both raise the
  same exception type with the same message. The first difference is kept.
At the end of the session both versions also run on inputs generated from the recorded calls.
Events (`judge_progress` per test, `judge_summary` at the end) go to the runner's JSON-lines
stream (SELFDEBUG_RESULT_STREAM), so a run killed half way still says what it compared.
"""

import ast
import copy
import inspect
import io
import json
import math
import os
import random
import re
import signal
import sys
import threading
import time
import types

import pytest

STREAM_ENV = "SELFDEBUG_RESULT_STREAM"
DISPATCH_NAME = "_selfdebug_judge_dispatch_v1"
MAX_COMPARED = 5000
MAX_RECORDED = 40
MAX_ITEMS = 1000  # items of a returned generator compared
MAX_DEPTH = 30
CALL_TEXT = 200
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_NOTHING = object()

_job = {}  # type: dict
_stream = None
_judge = None  # type: _Judge | None
_local = threading.local()
_FLIPPED = {}  # type: dict  # id -> (generated object, "flag=True"): shown in its call's text


class _Stop(BaseException):
    """The per-call alarm: a BaseException, so `except Exception` in the function lets it pass."""


def pytest_addoption(parser):
    parser.addoption("--selfdebug-job", default="", help="selfdebug judge job (JSON)")


def pytest_configure(config):
    global _job, _stream
    path = config.getoption("--selfdebug-job")
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        _job = json.load(handle)
    stream = os.environ.get(STREAM_ENV)
    if stream:
        _stream = open(stream, "a", encoding="utf-8")  # noqa: SIM115 (open for the session)


def _emit(event):
    if _stream is not None:
        _stream.write(json.dumps(event, default=repr) + "\n")
        _stream.flush()


def pytest_collection_finish(session):
    global _judge
    if not _job:
        return
    judge, problem = _install(_job)
    if judge is None:
        _emit({"event": "judge_summary", "not_comparable": problem, **_empty_counts()})
        return
    _judge = judge
    _emit({"event": "judge_installed"})


def pytest_runtest_logfinish(nodeid, location):
    if _judge is not None and _judge.changed:
        _judge.changed = False
        _emit({"event": "judge_progress", **_judge.counts()})


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    judge = _judge
    if judge is None:
        return
    _emit({"event": "start", "nodeid": "selfdebug-judge:generated inputs"})  # the watchdog's clock
    try:
        judge.generated(int(_job.get("generated", 200)), float(_job.get("generated_s", 60.0)))
    except Exception as error:  # the suite's comparison stands without them
        judge.notes.append(f"generated inputs stopped: {type(error).__name__}: {error}"[:300])
    finally:
        _emit(
            {"event": "result", "nodeid": "selfdebug-judge:generated inputs", "outcome": "passed"}
        )
    judge.uninstall()
    _emit({"event": "judge_summary", **judge.counts()})


def _empty_counts():
    return {"compared": 0, "not_copyable": 0, "differing": 0, "generated": 0, "first": None}


# -- finding the function and compiling the reference ---------------------------------------------
def _shadow_path(path):
    user = os.environ.get("SELFDEBUG_USER_ROOT", "").rstrip(os.sep)
    shadow = os.environ.get("SELFDEBUG_SHADOW_ROOT", "").rstrip(os.sep)
    if user and shadow and (path == user or path.startswith(user + os.sep)):
        return shadow + path[len(user) :]
    return path


def _module_of(file):
    wanted = {os.path.realpath(file), os.path.realpath(_shadow_path(file))}
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin and os.path.realpath(origin) in wanted:
            return module
    return None


def _unwrap(attribute):
    """The plain function behind a staticmethod, classmethod, property, cached_property or
    functools.wraps wrapper."""
    for name in ("__func__", "fget", "func"):
        inner = getattr(attribute, name, None)
        if inner is not None and hasattr(inner, "__code__"):
            attribute = inner
            break
    seen = 0
    while hasattr(attribute, "__wrapped__") and seen < 20:
        attribute = attribute.__wrapped__
        seen += 1
    return attribute


def _find(file, qualname):
    module = _module_of(file)
    if module is None:
        return None, "the tests never import the function's module"
    holder = module
    for part in qualname.split("."):
        attribute = getattr(holder, "__dict__", {}).get(part, _NOTHING)
        if attribute is _NOTHING:
            attribute = getattr(holder, part, _NOTHING)
        if attribute is _NOTHING:
            return None, f"{qualname} is not found in its module"
        holder = attribute
    function = _unwrap(holder)
    if not isinstance(function, types.FunctionType):
        return None, f"{qualname} is not a plain function"
    return function, ""


def _code_objects(code):
    found = [code]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            found.extend(_code_objects(constant))
    return found


def _def_of(text):
    tree = ast.parse(text)
    defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return defs[0] if len(defs) == 1 else None


def _compile(text, qualname, original, filename):
    """The reference's code object, compiled without running its decorators: inside a class of
    the owner's name (private names mangle as in the file) and inside a function that makes the
    original's free variables free here too."""
    function = _def_of(text)
    if function is None:
        return None, "the reference is not one function"
    function.decorator_list = []
    parts = qualname.split(".")
    owner = parts[-2] if len(parts) > 1 else ""
    body = [function]  # type: list
    free = list(original.co_freevars)
    if owner or "__class__" in free:
        holder = ast.ClassDef(
            name=owner or "_selfdebug_cls", bases=[], keywords=[], body=body, decorator_list=[]
        )
        body = [_no_type_params(holder)]
    others = [name for name in free if name != "__class__"]
    if others:
        assigns = [
            ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(None))
            for name in others
        ]
        uses = [ast.Expr(value=ast.Name(id=name, ctx=ast.Load())) for name in others]
        arguments = ast.arguments(
            posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]
        )
        outer = ast.FunctionDef(
            name="_selfdebug_outer",
            args=arguments,
            body=assigns + body + uses,
            decorator_list=[],
            returns=None,
        )
        body = [_no_type_params(outer)]
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec")
    except (SyntaxError, ValueError) as error:
        return None, f"the reference does not compile: {error}"
    for found in _code_objects(code):
        if found.co_name == function.name and found.co_firstlineno == function.lineno:
            if found.co_freevars != original.co_freevars:
                return None, "the reference's free variables differ from the candidate's"
            return found, ""
    return None, "the reference's code was not found"


def _no_type_params(node):
    if sys.version_info >= (3, 12):
        node.type_params = []
    return node


def _defaults(reference_text, candidate_text, target):
    """The reference's default values: the candidate's own objects when both write them the
    same (a sentinel stays the same object), else evaluated in the module's globals."""
    ref = _def_of(reference_text)
    cand = _def_of(candidate_text) if candidate_text else None
    if ref is None:
        raise ValueError("no reference")

    def dump(node):
        if node is None:
            return ""
        return repr(
            [ast.dump(d) for d in node.args.defaults]
            + [ast.dump(d) if d is not None else "" for d in node.args.kw_defaults]
            + [a.arg for a in node.args.kwonlyargs]
        )

    if cand is not None and dump(ref) == dump(cand):
        return target.__defaults__, target.__kwdefaults__
    scope = dict(target.__globals__)
    defaults = tuple(eval(compile(ast.Expression(d), "<default>", "eval"), scope)
                     for d in ref.args.defaults)  # fmt: skip
    kwdefaults = {
        a.arg: eval(compile(ast.Expression(d), "<default>", "eval"), scope)
        for a, d in zip(ref.args.kwonlyargs, ref.args.kw_defaults)  # noqa: B905 (3.8+)
        if d is not None
    }
    return defaults or None, kwdefaults or None


def _dispatcher_code(original):
    """A `(*args, **kwargs)` function with the original's free variables (so it fits the
    function's closure) that hands every call to the judge."""
    free = list(original.co_freevars)
    others = [name for name in free if name != "__class__"]
    body = "".join(f"{name}\n" for name in free) + f"return {DISPATCH_NAME}(args, kwargs)\n"
    text = "def _selfdebug_dispatch(*args, **kwargs):\n" + _indent(body)
    if "__class__" in free:
        text = "class _selfdebug_cls:\n" + _indent(text)
    if others:
        assigns = "".join(f"{name} = None\n" for name in others)
        text = "def _selfdebug_outer():\n" + _indent(assigns + text + "return None\n")
    code = compile(text, "<selfdebug-judge>", "exec")
    for found in _code_objects(code):
        if found.co_name == "_selfdebug_dispatch" and len(found.co_freevars) == len(free):
            return found
    return None


def _indent(text):
    return "".join("    " + line + "\n" for line in text.splitlines())


def _install(job):
    target, problem = _find(job["file"], job["qualname"])
    if target is None:
        return None, problem
    original = target.__code__
    if original.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return None, "an async function"
    code, problem = _compile(job["reference"], job["qualname"], original, original.co_filename)
    if code is None:
        return None, problem
    try:
        defaults, kwdefaults = _defaults(job["reference"], job.get("candidate", ""), target)
    except Exception as error:
        return None, f"the reference's default values: {type(error).__name__}: {error}"
    dispatcher = _dispatcher_code(original)
    if dispatcher is None:
        return None, "the function's closure cannot be reproduced"
    closure = target.__closure__
    name = target.__name__
    reference = types.FunctionType(code, target.__globals__, name, defaults, closure)
    reference.__kwdefaults__ = kwdefaults
    candidate = types.FunctionType(original, target.__globals__, name, target.__defaults__, closure)
    candidate.__kwdefaults__ = target.__kwdefaults__
    for function in (reference, candidate):
        function.__qualname__ = target.__qualname__
        function.__dict__.update(target.__dict__)
    judge = _Judge(target, original, reference, candidate, job)
    try:
        target.__signature__ = inspect.signature(target)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    target.__globals__[DISPATCH_NAME] = judge.dispatch
    target.__code__ = dispatcher
    return judge, ""


# -- one call, both versions ----------------------------------------------------------------------
class _Outcome:
    """What one version did: returned `value`, raised `error`, or did not finish (`timeout`).
    A returned generator is `items` (and `error` if it raised part way) plus `rest`."""

    def __init__(self):
        self.value = None
        self.error = None  # type: BaseException | None
        self.timeout = False
        self.items = None  # type: list | None
        self.rest = None
        self.seconds = 0.0

    def describe(self):
        if self.timeout:
            return "does not finish in time"
        if self.items is not None:
            text = f"yields {_short(self.items)}"
            return text + (f", then raises {_exc_text(self.error)}" if self.error else "")
        if self.error is not None:
            return f"raises {_exc_text(self.error)}"
        return f"returns {_short(self.value)}"

    def deliver(self):
        if self.items is not None:
            return _replay(self.items, self.error, self.rest)
        if self.error is not None:
            raise self.error
        return self.value


def _replay(items, error, rest):
    yield from items
    if error is not None:
        raise error
    if rest is not None:
        yield from rest


def _exc_text(error):
    text = _ADDRESS.sub("", str(error))
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}({text!r})" if text else type(error).__name__


def _is_lazy(value):
    if isinstance(value, types.GeneratorType):
        return True
    kind = type(value)
    return (
        kind.__module__ in ("builtins", "itertools")
        and hasattr(value, "__next__")
        and iter(value) is value
    )


_armed = {"on": False}


def _on_alarm(signum, frame):
    if _armed["on"]:
        _armed["on"] = False
        raise _Stop()


def _timers_free():
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getitimer(signal.ITIMER_REAL)[0] or signal.getitimer(signal.ITIMER_VIRTUAL)[0]:
        return False
    return all(
        signal.getsignal(s) in (signal.SIG_DFL, signal.SIG_IGN, None)
        for s in (signal.SIGALRM, signal.SIGVTALRM)
    )


def _run(label, function, args, kwargs, cpu_s, quiet):
    """Call `function` with the thread's running marker set to `label` (recursive calls stay in
    this version); under a CPU alarm when `cpu_s` (and no timer of the tests is in use)."""
    outcome = _Outcome()
    timed = bool(cpu_s) and _timers_free()
    previous = None
    if timed:
        previous = (
            signal.signal(signal.SIGVTALRM, _on_alarm),
            signal.signal(signal.SIGALRM, _on_alarm),
        )
        signal.setitimer(signal.ITIMER_VIRTUAL, cpu_s)
        signal.setitimer(signal.ITIMER_REAL, cpu_s * 5 + 1)
        _armed["on"] = True
    out, err = sys.stdout, sys.stderr
    if quiet:
        sys.stdout = sys.stderr = io.StringIO()
    _local.running = label
    started = time.process_time()
    try:
        outcome.value = function(*args, **kwargs)
        if _is_lazy(outcome.value):
            _materialise(outcome)
    except _Stop:
        outcome.timeout = True
    except RecursionError:
        outcome.timeout = True  # too deep with our frames in between: no evidence either way
    except BaseException as error:
        outcome.error = error
    finally:
        outcome.seconds = time.process_time() - started
        _local.running = None
        if timed:
            _armed["on"] = False
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGVTALRM, previous[0])  # type: ignore[index]
            signal.signal(signal.SIGALRM, previous[1])  # type: ignore[index]
        if quiet:
            sys.stdout, sys.stderr = out, err
    return outcome


def _materialise(outcome):
    lazy = outcome.value
    items = []
    try:
        for item in lazy:
            items.append(item)
            if len(items) >= MAX_ITEMS:
                outcome.rest = lazy
                break
    except (_Stop, RecursionError):
        raise
    except BaseException as error:
        outcome.error = error
    outcome.items = items
    outcome.value = None


def _same_outcome(a, b):
    if a.timeout or b.timeout:
        return None  # no evidence
    if (a.items is None) != (b.items is None):
        return False
    if a.error is not None or b.error is not None:
        if a.error is None or b.error is None:
            return False
        if type(a.error) is not type(b.error):
            return False
        if _ADDRESS.sub("", str(a.error)) != _ADDRESS.sub("", str(b.error)):
            return False
    if a.items is not None:
        return _same(a.items, b.items)
    if a.error is None:
        return _same(a.value, b.value)
    return True


def _defines_eq(value):
    return type(value).__eq__ is not object.__eq__


def _same(a, b, depth=0, seen=None):
    """Equal as results: same types; floats within 1e-9; containers item by item; a type with its
    own `__eq__` by it; any other object by its attributes (cycles and depth bounded)."""
    if a is b:
        return True
    if type(a).__module__ == "unittest.mock":
        return True  # a deep copy of a Mock is a call on it, not a copy: nothing to compare
    if type(a) is not type(b) and not _made_alike(type(a), type(b)):
        return False
    if depth > MAX_DEPTH:
        return True
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if seen is None:
        seen = set()
    key = (id(a), id(b))
    if key in seen:
        return True
    seen.add(key)
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return False
        if type(a) is not list and type(a) is not tuple and _defines_eq(a) and not _fields(a):
            return _equal(a, b)
        return all(_same(x, y, depth + 1, seen) for x, y in zip(a, b))  # noqa: B905 (3.8+)
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        if set(a) != set(b):
            # keys hashed by identity (objects without `__eq__`) are never equal across two
            # copies: such keys are paired in order (a deep copy keeps a dict's order)
            return all(
                _same(ka, kb, depth + 1, seen) and _same(va, vb, depth + 1, seen)
                for (ka, va), (kb, vb) in zip(a.items(), b.items())  # noqa: B905 (3.8+)
            )
        if type(a) is not dict and list(a) != list(b):  # OrderedDict and friends: order counts
            return False
        return all(_same(a[k], b[k], depth + 1, seen) for k in a)
    if isinstance(a, (set, frozenset)):
        if len(a) != len(b):
            return False
        if _equal(a, b):
            return True
        # members hashed by identity: paired by their text (fields shown), addresses left out

        def order(item):
            return _ADDRESS.sub("", _short(item))

        return all(
            _same(x, y, depth + 1, seen)
            for x, y in zip(sorted(a, key=order), sorted(b, key=order))  # noqa: B905 (3.8+)
        )
    if isinstance(a, (str, bytes, int, bool, type(None), range)):
        return _equal(a, b)
    if isinstance(a, BaseException):
        return type(a) is type(b) and _ADDRESS.sub("", str(a)) == _ADDRESS.sub("", str(b))
    if isinstance(a, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)):
        return a == b
    if _defines_eq(a) and (_equal(a, b) or not _unequal_to_its_copy(a)):
        return _equal(a, b)
    fields = _fields(a)  # no `__eq__`, or one that tells two copies apart: the attributes
    if fields is None:
        return _ADDRESS.sub("", repr(a)) == _ADDRESS.sub("", repr(b))
    other = _fields(b)
    if other is None or set(fields) != set(other):
        return False
    return all(_same(fields[k], other[k], depth + 1, seen) for k in fields)


def _equal(a, b):
    try:
        result = a == b
        if isinstance(result, bool):
            return result
        return bool(result)
    except Exception:
        return _ADDRESS.sub("", repr(a)) == _ADDRESS.sub("", repr(b))


def _made_alike(a, b):
    """Two classes made one per object, as `unittest.mock.Mock` makes them (a copy's class is
    made from the original's): the same names along their bases."""

    def names(kind):
        return {(k.__module__, k.__qualname__) for k in kind.__mro__}

    return a.__qualname__ == b.__qualname__ and names(a) == names(b)


def _unequal_to_its_copy(value):
    """An `__eq__` that compares something by identity (`self._schema == other._schema` on
    objects without `__eq__`) says a deep copy differs: it cannot compare two runs' results."""
    try:
        return not _equal(value, copy.deepcopy(value))
    except Exception:
        return False


def _fields(value):
    """An object's attributes: `vars()` and `__slots__` (None for an object without either)."""
    found = {}
    has = False
    try:
        found.update(vars(value))
        has = True
    except TypeError:
        pass
    for kind in type(value).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name in ("__dict__", "__weakref__"):
                continue
            has = True
            try:
                found[name] = getattr(value, name)
            except AttributeError:
                found[name] = _NOTHING
    return found if has else None


def _short(value, limit=CALL_TEXT):
    """A bounded text of a value: reprs of plain values, objects as `Type(a=..., b=...)`."""
    parts = []  # type: list
    budget = [limit]
    _text(value, parts, budget, 0, set())
    text = "".join(parts)
    return text if budget[0] >= 0 else text[: limit - 3] + "..."


def _text(value, parts, budget, depth, seen):
    _text_of(value, parts, budget, depth, seen)
    flipped = _FLIPPED.get(id(value))
    shown = type(value).__repr__ is object.__repr__  # its fields are in the text already
    if flipped is not None and flipped[0] is value and not shown:  # what a generated one changed
        _put(parts, budget, f" with {flipped[1]}")


def _text_of(value, parts, budget, depth, seen):
    if budget[0] <= 0:
        return
    if depth > 6:
        _put(parts, budget, "...")
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        if id(value) in seen:
            _put(parts, budget, "<cycle>")
            return
        seen = seen | {id(value)}
        items = list(value) if not isinstance(value, (set, frozenset)) else sorted(value, key=repr)
        brackets = "[]" if isinstance(value, list) else "()" if isinstance(value, tuple) else "{}"
        if isinstance(value, (set, frozenset)) and not items:
            _put(parts, budget, "set()")
            return
        _put(parts, budget, brackets[0])
        for index, item in enumerate(items):
            if index:
                _put(parts, budget, ", ")
            _text(item, parts, budget, depth + 1, seen)
            if budget[0] <= 0:
                return
        if type(value) is tuple and len(items) == 1:
            _put(parts, budget, ",")
        _put(parts, budget, brackets[1])
        return
    if isinstance(value, dict):
        if id(value) in seen:
            _put(parts, budget, "<cycle>")
            return
        seen = seen | {id(value)}
        _put(parts, budget, "{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                _put(parts, budget, ", ")
            _text(key, parts, budget, depth + 1, seen)
            _put(parts, budget, ": ")
            _text(item, parts, budget, depth + 1, seen)
            if budget[0] <= 0:
                return
        _put(parts, budget, "}")
        return
    if type(value).__repr__ is object.__repr__ and not isinstance(value, type):
        fields = _fields(value)
        if fields is not None:
            if id(value) in seen:
                _put(parts, budget, "<cycle>")
                return
            seen = seen | {id(value)}
            _put(parts, budget, type(value).__name__ + "(")
            for index, (key, item) in enumerate(fields.items()):
                if index:
                    _put(parts, budget, ", ")
                _put(parts, budget, f"{key}=")
                _text(item, parts, budget, depth + 1, seen)
                if budget[0] <= 0:
                    return
            _put(parts, budget, ")")
            return
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    _put(parts, budget, _ADDRESS.sub("", text))


def _put(parts, budget, text):
    parts.append(text[: max(0, budget[0])])
    budget[0] -= len(text)


def _call_text(name, args, kwargs):
    each = max(30, CALL_TEXT // max(1, len(args) + len(kwargs)))  # `self` must not hide the rest
    shown = [_short(a, each) for a in args] + [f"{k}={_short(v, each)}" for k, v in kwargs.items()]
    text = f"{name}({', '.join(shown)})"
    return text if len(text) <= CALL_TEXT + 20 else text[: CALL_TEXT + 17] + "..."


class _Judge:
    """The dispatcher's state: both versions, the counts, the first difference, the calls kept
    for the generated inputs."""

    def __init__(self, target, original, reference, candidate, job):
        self.target, self.original = target, original
        self.reference, self.candidate = reference, candidate
        self.name = target.__name__
        self.cpu_s = float(job.get("cpu_s", 2.0))
        self.compared = 0
        self.not_copyable = 0
        self.not_finished = 0
        self.differing = 0
        self.generated_count = 0
        self.first = None  # type: dict | None
        self.recorded = []  # type: list
        self.recorded_text = set()  # type: set
        self.notes = []  # type: list
        self.changed = False
        self.lock = threading.Lock()

    def counts(self):
        return {
            "compared": self.compared,
            "not_copyable": self.not_copyable,
            "not_finished": self.not_finished,
            "differing": self.differing,
            "generated": self.generated_count,
            "recorded": len(self.recorded),
            "first": self.first,
            "notes": self.notes[:5],
        }

    def uninstall(self):
        self.target.__code__ = self.original

    def dispatch(self, args, kwargs):
        running = getattr(_local, "running", None)
        if running == "reference":
            return self.reference(*args, **kwargs)
        if running is not None:
            return self.candidate(*args, **kwargs)
        if self.compared >= MAX_COMPARED:
            return _run("reference", self.reference, args, kwargs, 0, False).deliver()
        try:
            before = copy.deepcopy((args, kwargs))
        except Exception:
            self.not_copyable += 1
            self.changed = True
            return _run("reference", self.reference, args, kwargs, 0, False).deliver()
        text = _call_text(self.name, args, kwargs)
        self._record(text, args, kwargs)
        state = random.getstate()
        ref = _run("reference", self.reference, args, kwargs, 0, False)
        after = random.getstate()
        random.setstate(state)  # the candidate draws the same numbers
        limit = max(self.cpu_s, 20 * ref.seconds)
        cand = _run("candidate", self.candidate, before[0], before[1], limit, True)
        random.setstate(after)
        self._compare(text, ref, cand, (args, kwargs), before, "a test's call")
        return ref.deliver()

    def _record(self, text, args, kwargs):
        if len(self.recorded) >= MAX_RECORDED or text in self.recorded_text:
            return
        try:
            self.recorded.append(copy.deepcopy((args, kwargs)))
            self.recorded_text.add(text)
        except Exception:
            pass

    def _compare(self, text, ref, cand, ref_args, cand_args, where):
        self.changed = True
        if ref.timeout and not cand.timeout:
            self.not_finished += 1
            return
        if cand.timeout and not ref.timeout and ref.seconds < self.cpu_s / 10:
            same = False  # the reference answered at once; the candidate did not in time
        else:
            same = _same_outcome(ref, cand)
        if same is None:
            self.not_finished += 1
            return
        detail = (ref.describe(), cand.describe())
        if same and not _same(ref_args, cand_args):
            same = False
            detail = (
                f"{detail[0]}, leaves the arguments as {_short(ref_args)}",
                f"{detail[1]}, leaves the arguments as {_short(cand_args)}",
            )
        if where == "a test's call":
            self.compared += 1
        else:
            self.generated_count += 1
        if not same:
            self.differing += 1
            simpler = (
                self.first is not None
                and self.first["where"] == where == "a generated input"
                and len(text) < len(self.first["call"])
            )  # of the generated inputs, the shortest one that differs is shown
            if self.first is None or simpler:
                self.first = {
                    "call": text,
                    "reference": detail[0],
                    "candidate": detail[1],
                    "where": where,
                }

    def generated(self, count, budget_s):
        """Both versions on `count` inputs made from the recorded calls, each on its own deep
        copy, within `budget_s` seconds in all."""
        deadline = time.monotonic() + budget_s
        for args, kwargs in _generate(self.recorded, count):
            if time.monotonic() > deadline:
                self.notes.append("generated inputs stopped at the time budget")
                break
            try:
                text = _call_text(self.name, args, kwargs)
                first = copy.deepcopy((args, kwargs))
                second = copy.deepcopy((args, kwargs))
            except Exception:
                continue
            state = random.getstate()
            ref = _run("reference", self.reference, first[0], first[1], self.cpu_s, True)
            random.setstate(state)
            limit = max(self.cpu_s, 20 * ref.seconds)
            cand = _run("candidate", self.candidate, second[0], second[1], limit, True)
            self._compare(text, ref, cand, first, second, "a generated input")


# -- generated inputs -----------------------------------------------------------------------------
def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _variants(value, observed, rng):
    """Values like `value`: ints and floats near it and at the edges (never of another sign
    when every observed one was non-negative), strings and lists shorter, longer, reordered,
    empty (sorted lists stay sorted), dicts with a key less, an object with one of its bool
    attributes flipped; other values as they are."""
    found = []  # type: list
    numbers = [v for v in observed if _number(v)]
    non_negative = bool(numbers) and all(v >= 0 for v in numbers)
    if isinstance(value, bool):
        found = [not value]
    elif isinstance(value, int):
        found = [value + 1, value - 1, 0, 1, -1, value * 2, value // 2, max(numbers or [0]) + 1]
        found += [rng.randint(min(numbers or [0]) - 2, max(numbers or [0]) + 3)]
    elif isinstance(value, float):
        found = [value + 1, value - 1, value / 2, value * 1.5, 0.0, -value]
    elif isinstance(value, str):
        alphabet = sorted({c for v in observed if isinstance(v, str) for c in v}) or ["a"]
        found = ["", value[:-1], value[1:], value + rng.choice(alphabet), value[::-1]]
        if value:
            chars = list(value)
            chars[rng.randrange(len(chars))] = rng.choice(alphabet)
            found.append("".join(chars))
            found.append(value[: len(value) // 2])
    elif isinstance(value, (list, tuple)):
        items = list(value)
        sorted_only = all(isinstance(v, (list, tuple)) and _sorted(v) for v in observed) and any(
            len(v) >= 3 for v in observed if isinstance(v, (list, tuple))
        )
        pool = [x for v in observed if isinstance(v, (list, tuple)) for x in v] or items
        options = [
            [],
            items[:-1],
            items[1:],
            items[::-1],
            [*items, rng.choice(pool)] if pool else [],
        ]
        if items:
            shuffled = list(items)
            rng.shuffle(shuffled)
            options.append(shuffled)
            options.append(items + items[:1])
            index = rng.randrange(len(items))
            alike = [x for x in pool if type(x) is type(items[index])]
            for inner in _variants(items[index], alike, rng)[:3]:
                changed = list(items)
                changed[index] = inner
                options.append(changed)
        for option in options:
            if sorted_only:
                try:
                    option = sorted(option)
                except TypeError:
                    pass
            found.append(option if isinstance(value, list) else _as_tuple(value, option))
    elif _plain_object(value):  # one of its flags flipped (`required`, `deprecated`, ...)
        flags = [k for k, v in vars(value).items() if isinstance(v, bool) and k[:1] != "_"]
        for name in rng.sample(flags, min(3, len(flags))):
            try:
                changed = copy.deepcopy(value)
                setattr(changed, name, not getattr(value, name))
                _FLIPPED[id(changed)] = (changed, f"{name}={not getattr(value, name)}")
                found.append(changed)
            except Exception:
                pass
    elif isinstance(value, dict) and value:
        keys = list(value)
        smaller = dict(value)
        del smaller[rng.choice(keys)]
        found = [{}, smaller]
    if found and all(_number(v) for v in found):
        limit = 2 * max([abs(v) for v in numbers] or [0]) + 5  # no runaway sizes
        found = [v for v in found if abs(v) <= limit and (v >= 0 or not non_negative)]
    return [v for v in found if not _same(v, value)]


def _plain_object(value):
    """An instance of a project's class with its attributes in `__dict__`."""
    return (
        hasattr(value, "__dict__")
        and type(value).__module__ not in ("builtins", "types")
        and not isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType))
    )


def _as_tuple(original, items):
    if type(original) is tuple:
        return tuple(items)
    try:
        return type(original)(*items)  # a named tuple
    except Exception:
        return original


def _sorted(values):
    try:
        return all(values[i] <= values[i + 1] for i in range(len(values) - 1))
    except Exception:
        return False


def _generate(calls, count, seed=0):
    """Up to `count` calls like the recorded ones, each a recorded or an earlier generated call
    with one argument (sometimes two) changed; distinct by their text, the recorded calls
    themselves excluded."""
    if not calls:
        return []
    rng = random.Random(seed)
    observed = {}  # type: dict
    for args, kwargs in calls:
        for index, value in enumerate(args):
            observed.setdefault(index, []).append(value)
        for name, value in kwargs.items():
            observed.setdefault(name, []).append(value)
    seen = {_call_text("f", a, k) for a, k in calls}
    found = []  # type: list
    for _attempt in range(count * 10):
        if len(found) >= count:
            break
        base = rng.choice(calls if not found or rng.random() < 0.5 else found)  # changes of changes
        try:
            args, kwargs = copy.deepcopy(base)
        except Exception:
            continue
        args, kwargs = list(args), dict(kwargs)
        keys = [i for i in range(len(args))] + list(kwargs)
        if not keys:
            break
        for key in rng.sample(keys, min(len(keys), rng.choice((1, 1, 1, 2)))):
            current = args[key] if isinstance(key, int) else kwargs[key]
            options = _variants(current, observed.get(key, [current]), rng)
            if not options:
                continue
            new = rng.choice(options)
            if isinstance(key, int):
                args[key] = new
            else:
                kwargs[key] = new
        text = _call_text("f", args, kwargs)
        if text not in seen:
            seen.add(text)
            found.append((tuple(args), kwargs))
    return found
