"""selfdebug edit-search plugin v1: many versions of one function judged in ONE pytest process.

Loaded with `-p _selfdebug_search_v1 --selfdebug-job=JOB.json` next to our result plugin, in the
project's interpreter (standard library and pytest only; imports nothing of ours). After pytest's
own collection it replaces the test loop:

- coverage: run every collected test once plain and once with line coverage of the target
  function only (sys.monitoring on 3.12+, else sys.settrace that traces only the target's code
  objects), and report each test's outcome and the lines it ran;
- candidates: for each candidate, compile its text, swap it in as the target function's
  `__code__` (so every reference to the function sees it), run the chosen tests and, when they all
  pass, the wider ones; restore the original code. A candidate that changes the module outside
  the function (`outside`: a constant's or a class attribute's statement, run where it is
  defined) or its default values (`defaults`) has those set for its tests and restored after.
  A per-candidate alarm stops a candidate that loops; the runner's watchdog kills the process if
  even that fails (`start`/`result` events per candidate keep it informed).

Every event goes to the same JSON-lines stream as our result plugin's (SELFDEBUG_RESULT_STREAM).
"""

import ast
import json
import os
import signal
import sys
import time
from typing import Any  # noqa: F401 (the type comment below)

import pytest

STREAM_ENV = "SELFDEBUG_RESULT_STREAM"
_job = None  # type: dict | None
_stream = None
_MONITORING = getattr(sys, "monitoring", None)  # type: Any  # 3.12+: line events per code object
_alarm = {"fired": False}
_session = {"now": None}  # type: dict  # the pytest session, for a teardown after an alarm  # pytest reports the alarm's exception as a failure: remember it here


class _CandidateTimeout(BaseException):
    """Raised by the per-candidate alarm; a BaseException so `except Exception` in tests keeps
    going only as far as pytest's own handler."""


def pytest_addoption(parser):
    parser.addoption("--selfdebug-job", default="", help="selfdebug edit-search job (JSON)")


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


# -- the target function --------------------------------------------------------------------------
def _shadow_path(path):
    user = os.environ.get("SELFDEBUG_USER_ROOT", "").rstrip(os.sep)
    shadow = os.environ.get("SELFDEBUG_SHADOW_ROOT", "").rstrip(os.sep)
    if user and shadow and (path == user or path.startswith(user + os.sep)):
        return shadow + path[len(user) :]
    return path


def _find_function(file, qualname, line=0):
    """The function object for `qualname` in the module loaded from `file` (already imported by
    the tests), or an error text. `line`: the function's first line (decorators included), which
    tells a property's getter from its setter (both are `C.name`)."""
    wanted = os.path.realpath(file)
    module = None
    for candidate in list(sys.modules.values()):
        origin = getattr(candidate, "__file__", None)
        if origin and os.path.realpath(origin) == wanted:
            module = candidate
            break
    if module is None:
        return None, "the tests do not import the target's module"
    holder = module
    for part in qualname.split("."):
        attribute = getattr(holder, "__dict__", {}).get(part, None)
        if attribute is None:
            attribute = getattr(holder, part, None)
        if attribute is None:
            return None, f"nested functions cannot be searched ({qualname})"
        holder = attribute
    functions = []
    for function in _accessors(holder):
        while hasattr(function, "__wrapped__"):
            function = function.__wrapped__
        if hasattr(function, "__code__"):
            functions.append(function)
    if not functions:
        return None, f"{qualname} is not a plain function"
    at_line = [f for f in functions if f.__code__.co_firstlineno == line]
    return (at_line or functions)[0], ""


def _accessors(holder):
    """The functions a class attribute holds: a property's getter, setter and deleter, a
    cached_property's function, a staticmethod's or classmethod's function, or itself."""
    import functools

    if isinstance(holder, property):
        return [f for f in (holder.fget, holder.fset, holder.fdel) if f is not None]
    if isinstance(holder, functools.cached_property):
        return [holder.func]
    return [getattr(holder, "__func__", holder)]


def _code_objects(code):
    """The function's code and every code nested in it (comprehensions, lambdas)."""
    found = [code]
    for constant in code.co_consts:
        if hasattr(constant, "co_code"):
            found.extend(_code_objects(constant))
    return found


def _owner_class(qualname):
    """The class a method is defined in (`A.B.f` -> `B`); "" for a plain function."""
    parts = qualname.split(".")
    return parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else ""


def _compile_candidate(text, first_line, filename, original, owner=""):
    """The code object of the candidate function text (column 0; its first line is line
    `first_line` of the file), or an error text. Free variables are reproduced by a wrapper so
    the new code fits the function's closure; a method is compiled in a class of its owner's
    name, so that private names (`self.__name`) are mangled as in the file."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        return None, f"does not parse: {error.msg}"
    defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) != 1:
        return None, "not one function"
    function = defs[0]
    function.decorator_list = []
    ast.increment_lineno(tree, first_line - 1)
    body = [function]  # type: list
    free = list(original.co_freevars)
    if owner or "__class__" in free:
        body = [ast.ClassDef(name=owner or "_selfdebug_cls", bases=[], keywords=[], body=body,
                             decorator_list=[])]  # fmt: skip
    others = [name for name in free if name != "__class__"]
    if others:
        assigns = [
            ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(None))
            for name in others
        ]
        uses = [ast.Expr(value=ast.Name(id=name, ctx=ast.Load())) for name in others]
        outer = ast.FunctionDef(name="_selfdebug_outer", args=ast.arguments(
            posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=assigns + body + uses, decorator_list=[], returns=None)  # fmt: skip
        body = [outer]
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec")
    except (SyntaxError, ValueError) as error:
        return None, f"does not compile: {error}"
    for found in _code_objects(code):
        if found.co_name == function.name and found.co_firstlineno == function.lineno:
            if found.co_freevars != original.co_freevars:
                return None, "changes the function's closure"
            return found, ""
    return None, "function code not found"


_MISSING = object()


def _outside_changes(function, candidate, filename):
    """What the candidate changes besides the function's code, as (holder, name, value) to set
    while its tests run, or an error text: each `outside` statement run with the names of its
    module (and of its class, for a class attribute) to read, its assigned names set there; with
    `defaults`, the candidate's def line's default values, evaluated as the def would."""
    module = function.__globals__
    changes = []
    try:
        for item in candidate.get("outside", ()):
            namespace = item.get("namespace", "")
            holder = _class_at(module, namespace) if namespace else module
            if holder is None:
                return None, f"no class {namespace} to change"
            tree = ast.parse(item["statement"])
            reads = dict(vars(holder)) if namespace else {}
            exec(compile(tree, filename, "exec"), module, reads)  # the candidate's statement
            for name in _assigned(tree):
                changes.append((holder, name, reads[name]))
        if candidate.get("defaults"):
            changes += _new_defaults(function, candidate["code"], filename)
    except Exception as error:  # the candidate's own error
        return None, f"its change outside the function fails: {type(error).__name__}: {error}"
    return changes, ""


def _new_defaults(function, text, filename):
    tree = ast.parse(text)
    defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    args = defs[0].args
    keys, values = [], []  # type: list, list
    for argument, default in zip(args.kwonlyargs, args.kw_defaults):  # noqa: B905 (3.9)
        if default is not None:  # one per keyword-only parameter, None for none
            keys.append(ast.Constant(argument.arg))
            values.append(default)
    value = ast.Tuple(elts=[
        ast.Tuple(elts=list(args.defaults), ctx=ast.Load()),
        ast.Dict(keys=keys, values=values),
    ], ctx=ast.Load())  # fmt: skip
    expression = ast.fix_missing_locations(ast.Expression(body=value))
    owner = function.__qualname__.rpartition(".")[0]
    holder = _class_at(function.__globals__, owner) if "<locals>" not in owner else None
    reads = dict(vars(holder)) if holder is not None else {}
    code = compile(expression, filename, "eval")
    defaults, kwdefaults = eval(code, function.__globals__, reads)  # the candidate's def line
    return [(function, "__defaults__", defaults or None),
            (function, "__kwdefaults__", kwdefaults or None)]  # fmt: skip


def _assigned(tree):
    """The plain names an assignment statement binds."""
    names = []
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else (
            [statement.target] if isinstance(statement, ast.AnnAssign) else [])  # fmt: skip
        for target in targets:
            names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return names


def _class_at(module, qualname):
    """The class `Outer.Inner` of a module's namespace, or None."""
    holder = module.get(qualname.split(".")[0]) if qualname else None
    for part in qualname.split(".")[1:]:
        holder = getattr(holder, "__dict__", {}).get(part)
    return holder if isinstance(holder, type) else None


def _set_all(changes, undo):
    """Set each (holder, name, value): a module's namespace (a dict), a class or a function;
    what to restore afterwards (`_restore`) added to `undo` as it goes."""
    for holder, name, value in changes:
        if isinstance(holder, dict):
            undo.append((holder, name, holder.get(name, _MISSING)))
            holder[name] = value
        else:
            old = vars(holder).get(name, _MISSING) if isinstance(holder, type) else getattr(
                holder, name)  # fmt: skip
            undo.append((holder, name, old))
            setattr(holder, name, value)


def _restore(undo):
    for holder, name, old in reversed(undo):
        if isinstance(holder, dict):
            if old is _MISSING:
                holder.pop(name, None)
            else:
                holder[name] = old
        elif old is _MISSING:
            delattr(holder, name)
        else:
            setattr(holder, name, old)


# -- running tests --------------------------------------------------------------------------------
def _run_items(items, stop_on_failure, label):
    """{nodeid: outcome} for `items`; with stop_on_failure, stop at the first failing test.
    Each test is announced to the runner's watchdog as `label:nodeid` (its per-test clock)."""
    from _pytest.runner import runtestprotocol

    outcomes = {}
    for index, item in enumerate(items):
        nextitem = items[index + 1] if index + 1 < len(items) else None
        _emit({"event": "start", "nodeid": f"{label}:{item.nodeid}"})
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        _emit({"event": "result", "nodeid": f"{label}:{item.nodeid}", "outcome": "passed"})
        outcome = "passed"
        for report in reports:
            if report.failed:
                outcome = "failed" if report.when == "call" else "error"
                break
            if report.skipped:
                outcome = "skipped"
        outcomes[item.nodeid] = outcome
        if _alarm["fired"] or (stop_on_failure and outcome in ("failed", "error")):
            if nextitem is not None:  # tear down what the next item would have reused
                _teardown_all(item)
            break
    return outcomes


def _teardown_all(item):
    session = item.session if item is not None else _session["now"]
    try:
        session._setupstate.teardown_exact(None)
    except Exception:
        pass


class _LineCoverage:
    """Lines of the target's code objects run while active; nothing else is traced. Active only
    during a test's call phase (see pytest_runtest_call), so pytest's own work is not traced."""

    def __init__(self, codes):
        self.codes = list(codes)  # held: _tracer tells them by identity
        self.lines = set()
        self._tool = None
        self._previous = None
        self._gettrace = sys.gettrace

    def start(self):
        monitoring = _MONITORING
        if monitoring is not None:
            self._tool = next((t for t in range(2, 6) if monitoring.get_tool(t) is None), None)
        if monitoring is not None and self._tool is not None:
            monitoring.use_tool_id(self._tool, "selfdebug-search")
            monitoring.register_callback(self._tool, monitoring.events.LINE, self._on_line)
            for code in self.codes:
                monitoring.set_local_events(self._tool, code, monitoring.events.LINE)
        else:
            self._tool = None
            self._gettrace = sys.gettrace
            self._previous = previous = sys.gettrace()
            sys.settrace(_tracer(self.codes, self.lines.add))
            sys.gettrace = lambda: previous  # not a debugger to the test (python-dotenv asks)

    def _on_line(self, code, line):
        self.lines.add(line)

    def stop(self):
        monitoring = _MONITORING
        if monitoring is not None and self._tool is not None:
            for code in self.codes:
                monitoring.set_local_events(self._tool, code, 0)
            monitoring.register_callback(self._tool, monitoring.events.LINE, None)
            monitoring.free_tool_id(self._tool)
        else:
            sys.gettrace = self._gettrace
            sys.settrace(self._previous)


def _tracer(codes, add):
    """sys.settrace's global function: a local tracer for the target's frames only (closures,
    not methods: this runs for every line of the target). The codes are told apart by identity:
    an equal code object of another file (the same function at the same line in a copy of the
    module: `==` ignores co_filename) is not the target."""
    ids = {id(code) for code in codes}  # the caller holds the code objects

    def local(frame, event, arg):
        if event == "line":
            add(frame.f_lineno)
        return local

    def on_call(frame, event, arg):
        return local if id(frame.f_code) in ids else None

    return on_call


_covering = {"now": None}  # type: dict  # the _LineCoverage of the test being run, if any


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    coverage = _covering["now"]
    if coverage is not None:
        coverage.start()
    yield
    if coverage is not None:
        coverage.stop()


def _coverage(items, codes, measure, test_timeout_s):
    """Each test's outcome and lines; with `measure`, also each test's time plain and covered
    (each test run both ways, alternating which goes first, after a warm-up run of every test:
    a failure's first report reads and caches sources, which is not tracing's cost)."""
    if measure:
        for item in items:
            _run_items([item], False, "search:warmup")
    plain_s = covered_s = 0.0
    tests = {}
    for index, item in enumerate(items):
        plain_first = measure and index % 2 == 0
        plain = _timed_plain(item) if plain_first else 0.0
        coverage = _covering["now"] = _LineCoverage(codes)
        started = time.perf_counter()
        _alarm["fired"] = False
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, test_timeout_s)  # a hung test: its lines so far
        try:
            outcome = _run_items([item], False, "search:coverage")[item.nodeid]
        except BaseException as error:
            if not _our_alarm(error):
                raise
            outcome = "timeout"
            _teardown_all(item)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            _covering["now"] = None
        if _alarm["fired"]:
            outcome = "timeout"
        covered = time.perf_counter() - started
        if measure and not plain_first:
            plain = _timed_plain(item)
        plain_s, covered_s = plain_s + plain, covered_s + covered
        tests[item.nodeid] = {"outcome": outcome, "lines": sorted(coverage.lines),
                              "plain_s": plain, "covered_s": covered}  # fmt: skip
    return plain_s, tests, covered_s


def _timed_plain(item):
    started = time.perf_counter()
    _run_items([item], False, "search:plain")
    return time.perf_counter() - started


def _on_alarm(signum, frame):
    _alarm["fired"] = True
    # the other clock too: armed, it would fire later in pytest's own code (a report hook, a
    # fixture's teardown) instead of in the candidate's test
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    raise _CandidateTimeout()


def _our_alarm(error):
    """Whether `error` is our timeout: raised as itself, or as what a plugin's hook wrapper made
    of it (pluggy reports an exception in an old-style wrapper's teardown as a warning, which a
    project's `filterwarnings = error` raises: hypothesis's makereport wrapper did)."""
    return isinstance(error, _CandidateTimeout) or (
        _alarm["fired"] and isinstance(error, Exception)
    )


def _judge(function, code, chosen, wider, limits, label, failing=(), rest=(), outside=()):
    """Run the chosen tests (and, when they all pass, the wider ones) with `code` swapped in
    (and `outside`'s changes set, `_outside_changes`).
    With `failing` (chosen tests that failed on the original), those run first and all of
    them, then the other chosen tests (`rest`) up to a first failure; when those all pass and
    some of `failing` do too (a partial fix), the wider tests run as well, to show what it
    breaks."""
    original = function.__code__
    outcomes = {}
    timed_out = False
    function.__code__ = code
    undo = []  # type: list
    _alarm["fired"] = False
    cpu_s, wall_s = limits
    previous = signal.signal(signal.SIGALRM, _on_alarm), signal.signal(signal.SIGVTALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_VIRTUAL, cpu_s)  # CPU time: other load on the machine
    signal.setitimer(signal.ITIMER_REAL, wall_s)  # does not count; a sleeping test does here
    try:
        _set_all(outside, undo)
        if failing:
            outcomes.update(_run_items(list(failing), False, label))
            fixed_some = any(outcomes.get(i.nodeid) == "passed" for i in failing)
            if rest and fixed_some and not _alarm["fired"]:
                outcomes.update(_run_items(rest, True, label))
            kept = fixed_some and all(outcomes.get(i.nodeid) == "passed" for i in rest)
        else:
            outcomes.update(_run_items(chosen, True, label))
            kept = all(o == "passed" for o in outcomes.values())
        if kept and wider and not _alarm["fired"]:
            outcomes.update(_run_items(wider, False, label))
    except BaseException as error:  # fired outside a test's own phases: reset pytest's fixtures
        if not _our_alarm(error):
            raise
        timed_out = True
        if chosen:
            _teardown_all(chosen[0])
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous[0])
        signal.signal(signal.SIGVTALRM, previous[1])
        _restore(undo)
        function.__code__ = original
    return outcomes, timed_out or _alarm["fired"]


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    if _job is None:
        return None
    try:
        _search_loop(session, _job)
    except _CandidateTimeout:
        _emit({"event": "search_error", "message": "timed out outside a candidate"})
    return True


def _search_loop(session, job):
    _session["now"] = session
    # a test named twice among the arguments (its file and its own id) is collected twice:
    # run once (a click case ran each of its 32 chosen tests twice per candidate)
    items, seen = [], set()
    for item in session.items:
        if item.nodeid not in seen:
            seen.add(item.nodeid)
            items.append(item)
    function, problem = _find_function(
        _shadow_path(job["file"]), job["qualname"], job.get("line", 0)
    )
    if function is None:
        _emit({"event": "search_error", "message": problem})
        return
    original = function.__code__
    chosen_ids = set(job.get("chosen", []))
    chosen = [i for i in items if i.nodeid in chosen_ids or _matches(i.nodeid, chosen_ids)]
    wider = [i for i in items if i not in chosen]
    failing_ids = set(job.get("failing_first", []))
    failing = [i for i in chosen if i.nodeid in failing_ids]  # run whole: partial fixes show
    rest = [i for i in chosen if i.nodeid not in failing_ids]
    _emit({"event": "search_ready", "chosen": [i.nodeid for i in chosen],
           "wider": [i.nodeid for i in wider]})  # fmt: skip
    if job.get("coverage"):
        codes = _code_objects(original)
        timeout = job.get("test_timeout_s", 10.0)
        plain_s, tests, covered_s = _coverage(items, codes, bool(job.get("measure")), timeout)
        _emit({"event": "search_coverage", "tests": tests, "plain_s": plain_s,
               "covered_s": covered_s})  # fmt: skip
    if job.get("crosscheck"):
        _crosscheck(function, chosen + wider, job)
        return
    candidates = job.get("candidates", [])
    if not candidates:
        return
    owner = _owner_class(function.__qualname__)
    limits, baseline = _candidate_limits(items, job)
    # a wider test that fails on a re-run of the unchanged function (it keeps state between
    # runs: a class registered twice) fails whatever the candidate: reported, not required
    unsteady = [i.nodeid for i in wider if baseline.get(i.nodeid, "passed") != "passed"]
    _emit({"event": "search_unsteady", "tests": unsteady})
    wanted = set(job.get("must_pass") or [i.nodeid for i in items]) - set(unsteady)
    must_pass = [i.nodeid for i in items if i.nodeid in wanted or _matches(i.nodeid, wanted)]
    filename = function.__code__.co_filename
    full_passes = 0
    for candidate in candidates:
        nodeid = f"search:{candidate['id']}"
        _emit({"event": "start", "nodeid": nodeid})
        started = time.perf_counter()
        code, problem = _compile_candidate(
            candidate["code"], candidate["first_line"], filename, original, owner
        )
        outside = ()
        if code is not None:
            outside, problem = _outside_changes(function, candidate, filename)
        if code is None or outside is None:
            event = {"event": "search_result", "id": candidate["id"], "problem": problem,
                     "outcomes": {}, "timed_out": False}  # fmt: skip
        else:
            outcomes, timed_out = _judge(
                function, code, chosen, wider, limits, nodeid, failing, rest, outside
            )
            event = {"event": "search_result", "id": candidate["id"], "problem": "",
                     "outcomes": outcomes, "timed_out": timed_out}  # fmt: skip
            if not timed_out and all(outcomes.get(n) == "passed" for n in must_pass):
                full_passes += 1
        event["seconds"] = time.perf_counter() - started
        _emit(event)
        _emit({"event": "result", "nodeid": nodeid, "outcome": "passed"})
        if job.get("stop_after") and full_passes >= job["stop_after"]:
            break
    _emit({"event": "search_done"})  # the batch ended as planned, not with the process


def _crosscheck(function, items, job):
    """The original and every candidate on inputs generated from the tests' own calls of the
    function (_selfdebug_inputs_v1.py); one `crosscheck` event with the inputs and outcomes."""
    import _selfdebug_inputs_v1 as inputs  # type: ignore[import-not-found]  # in our folder

    original = function.__code__
    settings = job["crosscheck"]
    if original.co_flags & (0x80 | 0x200):  # a coroutine or an async generator: not run here
        _emit({"event": "search_error", "message": "async functions are not run on inputs"})
        return
    with inputs.Recorder(original) as recorder:
        for item in items:
            if len(recorder.recorded()) >= settings.get("max_recorded", 20):
                break
            _with_alarm(settings.get("record_test_s", 1.0),
                        lambda i=item: _run_items([i], False, "search:record"))  # fmt: skip
    recorded = recorder.recorded()
    generated = inputs.generate(recorded, settings.get("count", 200), settings.get("seed", 0))
    codes, problems, changes = {"original": original}, {}, {}
    owner = _owner_class(function.__qualname__)
    for candidate in job.get("candidates", []):
        code, problem = _compile_candidate(
            candidate["code"], candidate["first_line"], original.co_filename, original, owner
        )
        outside = ()
        if code is not None:
            outside, problem = _outside_changes(function, candidate, original.co_filename)
        if code is None or outside is None:
            problems[str(candidate["id"])] = problem
        else:
            codes[str(candidate["id"])] = code
            changes[str(candidate["id"])] = outside
    _emit({"event": "start", "nodeid": "search:crosscheck:measure"})
    cpu_s = inputs.call_limit(function, recorded, settings.get("max_call_cpu_s", 0.2))
    _emit({"event": "result", "nodeid": "search:crosscheck:measure", "outcome": "passed"})
    budget_s = settings.get("budget_s", 2.0)
    outcomes = {}
    for key, code in codes.items():
        _emit({"event": "start", "nodeid": f"search:crosscheck:{key}"})
        undo = []  # type: list
        try:
            _set_all(changes.get(key, ()), undo)
            outcomes.update(inputs.run_all(function, {key: code}, generated, cpu_s, budget_s))
        finally:
            _restore(undo)
        _emit({"event": "result", "nodeid": f"search:crosscheck:{key}", "outcome": "passed"})
    _emit({"event": "search_crosscheck", "recorded": len(recorded),
           "record_problems": recorder.problems,
           "inputs": [inputs.describe(a, k) for a, k in generated], "outcomes": outcomes,
           "problems": problems, "call_cpu_s": cpu_s})  # fmt: skip


def _with_alarm(seconds, run):
    """Run `run()` stopped after `seconds` (wall); True when it had to be stopped."""
    _alarm["fired"] = False
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        run()
    except BaseException as error:
        if not _our_alarm(error):
            raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if _alarm["fired"]:
        _teardown_all(None)
    return _alarm["fired"]


def _candidate_limits(items, job):
    """(CPU s, wall s) a candidate may take for all its tests: a multiple of what the unchanged
    function takes (measured warm), never below a floor. CPU time is the tight limit (a loop
    burns it, a loaded machine does not); wall time catches a candidate that sleeps. Also the
    unchanged function's outcomes on that re-run in this process (none when it hung)."""
    cap = job.get("test_timeout_s", 10.0)
    outcomes = {}
    for _warm_then_measured in range(2):  # the first run reads and caches sources
        wall, cpu = time.perf_counter(), time.process_time()
        hung = _with_alarm(
            cap, lambda: outcomes.update(_run_items(items, False, "search:baseline"))
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if hung:  # the bug makes the function hang: no time to compare with, so the floors
            return (job.get("min_cpu_s", 0.02) * 10, job.get("min_timeout_s", 0.5)), {}
    cpu_s = max(job.get("min_cpu_s", 0.02), job.get("cpu_factor", 3.0) * cpu)
    high = max(job.get("max_timeout_s", 5.0), 3 * wall)  # a slow suite is not a hung candidate
    wall_s = min(high, max(job.get("min_timeout_s", 0.5), job.get("wall_factor", 20.0) * wall))
    return (cpu_s, wall_s), outcomes


def _matches(nodeid, wanted):
    return any(nodeid.startswith((w + "[", w + "::")) for w in wanted)
