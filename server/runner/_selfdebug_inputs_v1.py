"""selfdebug generated inputs v1: versions of one function run side by side on inputs shaped
like the tests' own calls, in the project's interpreter (standard library only).

Used by the edit-search plugin (`_selfdebug_search_v1.py`), which finds the function and
compiles the versions. Three steps:

- `Recorder`: while the tests run the original function, the arguments of its calls (from the
  test, not its own recursive calls, unless there are too few), deep-copied at the call;
- `generate`: more calls of the same shapes, seeded: ints and floats near the observed values
  and at the edges (their sign and order kept: a precondition the tests respect), lists
  shuffled, with a duplicate, shorter, longer, empty (kept sorted when every observed one was),
  strings edited within their own alphabet, dicts with a key added or removed; objects of
  other types are left as they were;
- `run_all`: every version on every input (a fresh deep copy each time) under a CPU alarm,
  each outcome a short text: `ok:<normalized repr of the result>` then SEPARATOR and the arguments
  after the call, `raise:<exception type>` then SEPARATOR and its message (addresses masked),
  or `timeout`.
"""

import copy
import io
import itertools
import math
import random
import re
import signal
import sys
import time
import types

SEPARATOR = "\x1f"  # between a result and the arguments after the call, in an `ok:` outcome
MAX_RECORDED = 40
MAX_REPR = 300
# calls are told apart by their whole text: cut at MAX_REPR, every call of a method whose
# object prints long (dateutil's parser: its whole parserinfo) looked like the first one
KEY_LIMIT = 100_000
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class Recorder:
    """sys.setprofile hook recording the calls of `code` (a profile function sees every call,
    not every line: the tests run at near full speed)."""

    def __init__(self, code):
        self.code = code
        self.calls = []  # (args, kwargs, nested)
        self.problems = 0
        self._previous = None

    def __enter__(self):
        self._previous = sys.getprofile()
        sys.setprofile(self._on_event)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self._previous)

    def _on_event(self, frame, event, arg):
        if event != "call" or frame.f_code is not self.code:
            return
        if len(self.calls) >= MAX_RECORDED * 4:
            return
        nested = False
        outer = frame.f_back
        while outer is not None:
            if outer.f_code is self.code:
                nested = True
                break
            outer = outer.f_back
        try:
            args, kwargs = _arguments(frame)
            self.calls.append((copy.deepcopy(args), copy.deepcopy(kwargs), nested))
        except Exception:
            self.problems += 1

    def recorded(self):
        """The calls from the tests first, then recursive ones; distinct, at most MAX_RECORDED."""
        ordered = [c for c in self.calls if not c[2]] + [c for c in self.calls if c[2]]
        seen, found = set(), []
        for args, kwargs, _nested in ordered:
            key = describe(args, kwargs, limit=KEY_LIMIT)
            if key not in seen:
                seen.add(key)
                found.append((args, kwargs))
        return found[:MAX_RECORDED]


def _arguments(frame):
    code = frame.f_code
    local = frame.f_locals
    count = code.co_argcount
    names = code.co_varnames
    args = [local[n] for n in names[:count]]
    kwargs = {n: local[n] for n in names[count : count + code.co_kwonlyargcount]}
    index = count + code.co_kwonlyargcount
    if code.co_flags & 0x04:  # *args
        args.extend(local[names[index]])
        index += 1
    if code.co_flags & 0x08:  # **kwargs
        kwargs.update(local[names[index]])
    return tuple(args), kwargs


# -- generating ---------------------------------------------------------------------------------
class _Shape:
    """What the recorded values at one argument position have in common."""

    def __init__(self, values):
        numbers = [v for v in values if _is_number(v)]
        self.low = min(numbers) if numbers else 0
        self.high = max(numbers) if numbers else 0
        self.sorted_lists = (
            bool(values)
            and all(isinstance(v, list) and _is_sorted(v) for v in values)
            and any(isinstance(v, list) and len(v) >= 3 for v in values)
        )
        lengths = [len(v) for v in values if isinstance(v, (list, str, tuple, dict))]
        self.max_len = max(lengths) if lengths else 0
        elements = []  # type: list
        for v in values:
            if isinstance(v, (list, tuple, set)):
                elements.extend(v)
        self.elements = elements
        self.element_shape = _Shape(elements) if elements and values is not elements else None
        self.alphabet = sorted({ch for v in values if isinstance(v, str) for ch in v}) or ["a"]


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_sorted(values):
    try:
        return all(values[i] <= values[i + 1] for i in range(len(values) - 1))
    except Exception:
        return False


def _int_near(rng, value, shape):
    choices = [
        value - 1,
        value + 1,
        value - 2,
        value + 2,
        0,
        1,
        value * 2,
        value // 2,
        rng.randint(int(min(shape.low, 0)) - 2, int(shape.high) + 3),
        shape.low,
        shape.high,
    ]
    if shape.low >= 0:
        choices = [c for c in choices if c >= 0] or [0]
    limit = max(abs(shape.high), abs(shape.low)) * 2 + 5
    choices = [c for c in choices if abs(c) <= limit] or [value]
    return rng.choice(choices)


def _float_near(rng, value, shape):
    choices = [
        value * 1.5,
        value / 2,
        value + 1,
        value - 1,
        value * 0.99,
        0.0,
        rng.uniform(min(shape.low, 0), shape.high + 1),
    ]
    if shape.low >= 0:
        choices = [c for c in choices if c >= 0] or [0.0]
    return rng.choice(choices)


def _mutate(rng, value, shape, depth=0):
    """A value like `value`: a new one, or `value` itself changed in place when it is an
    object (its call is a private deep copy, so objects shared between arguments stay
    shared)."""
    if isinstance(value, bool):
        return not value if rng.random() < 0.5 else value
    if isinstance(value, int):
        return _int_near(rng, value, shape)
    if isinstance(value, float):
        return _float_near(rng, value, shape)
    if isinstance(value, str):
        return _mutate_text(rng, value, shape)
    if isinstance(value, list):
        return _mutate_list(rng, value, shape, depth)
    if isinstance(value, tuple) and depth < 3:
        if not value:
            return value
        items = list(value)
        index = rng.randrange(len(items))
        inner = shape.element_shape or _Shape([items[index]])
        items[index] = _mutate(rng, items[index], inner, depth + 1)
        return type(value)(items) if type(value) is tuple else value
    if isinstance(value, (set, frozenset)):
        items = _mutate_list(rng, sorted(value, key=repr), shape, depth)
        try:
            return type(value)(items)
        except TypeError:
            return value
    if isinstance(value, dict):
        return _mutate_dict(rng, value, shape, depth)
    if _is_object(value):
        _mutate_object(rng, value, depth)
    return value


def _is_object(value):
    """An instance of a class of the project's with plain attributes (a node, a record)."""
    kind = type(value)
    return (
        hasattr(value, "__dict__")
        and kind.__module__ not in ("builtins", "types")
        and not isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType))
    )


def _reachable(value, limit=60):
    """The objects reachable from `value` through attributes and containers, `value` first."""
    found, seen, todo = [], set(), [value]  # type: list, set, list
    while todo and len(found) < limit:
        item = todo.pop(0)
        if id(item) in seen:
            continue
        seen.add(id(item))
        if _is_object(item):
            found.append(item)
            todo.extend(vars(item).values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
    return found


def _mutate_object(rng, value, depth):
    """One attribute of an object reachable from `value` changed in place: a link to an
    object cut (None) or pointed at another reachable object of its class (a cycle, a
    shortcut), a plain value changed like any value."""
    nodes = _reachable(value)
    if not nodes:
        return
    node = rng.choice(nodes)
    names = [n for n in vars(node) if not n.startswith("__")]
    if not names:
        return
    name = rng.choice(names)
    current = getattr(node, name)
    if current is None or _is_object(current):
        kind = type(current) if current is not None else type(node)
        others = [n for n in nodes if type(n) is kind and n is not current]
        choice = rng.choice([None, *others]) if others else None
    elif depth < 3:
        choice = _mutate(rng, current, _Shape([current]), depth + 1)
    else:
        return
    try:
        setattr(node, name, choice)
    except Exception:
        pass


def _mutate_text(rng, value, shape):
    chars = list(value)
    move = rng.randrange(7)
    if move == 0 or not chars:
        chars.insert(rng.randint(0, len(chars)), rng.choice(shape.alphabet))
    elif move == 1:
        del chars[rng.randrange(len(chars))]
    elif move == 2:
        index = rng.randrange(len(chars))
        chars.insert(index, chars[index])
    elif move == 3:
        rng.shuffle(chars)
    elif move == 4:
        chars[rng.randrange(len(chars))] = rng.choice(shape.alphabet)
    elif move == 5:
        chars = chars[: rng.randint(0, len(chars))]
    else:
        chars = []
    return "".join(chars)


def _mutate_list(rng, value, shape, depth):
    items = list(value)
    inner = shape.element_shape or _Shape(items)
    move = rng.randrange(8)
    if move == 0:
        rng.shuffle(items)
    elif move == 1 and items:
        items.insert(rng.randint(0, len(items)), rng.choice(items))
    elif move == 2 and items:
        del items[rng.randrange(len(items))]
    elif move == 3 and items:  # longer
        extra = rng.randint(1, max(1, min(len(items), 4)))
        pool = inner.elements or items
        items.extend(rng.choice(pool) for _ in range(extra))
    elif move == 4:
        items = []
    elif move == 5 and items:
        items.reverse()
    elif items:
        index = rng.randrange(len(items))
        items[index] = _mutate(rng, items[index], inner, depth + 1)
    if shape.sorted_lists:
        try:
            items.sort()
        except TypeError:
            pass
    if shape.max_len and len(items) > 2 * shape.max_len + 3:
        items = items[: 2 * shape.max_len + 3]
    return items


def _mutate_dict(rng, value, shape, depth):
    items = dict(value)
    move = rng.randrange(3)
    keys = list(items)
    if move == 0 and keys:
        del items[rng.choice(keys)]
    elif move == 1 and keys:
        key = rng.choice(keys)
        new = key + "_" if isinstance(key, str) else (key + 1 if _is_number(key) else None)
        if new is not None and new not in items:
            items[new] = items[key]
    elif keys:
        key = rng.choice(keys)
        items[key] = _mutate(rng, items[key], _Shape([items[key]]), depth + 1)
    return items


def generate(calls, count, seed=0):
    """`count` calls like `calls` ((args, kwargs) pairs): the recorded ones first, then each
    a recorded or an earlier generated call with one or two of its arguments changed (the
    shapes' limits stay those of the recorded calls); distinct by their text."""
    if not calls:
        return []
    rng = random.Random(seed)
    positions = {}  # type: dict
    for args, kwargs in calls:
        for index, value in enumerate(args):
            positions.setdefault(index, []).append(value)
        for name, value in kwargs.items():
            positions.setdefault(name, []).append(value)
    shapes = {key: _Shape(values) for key, values in positions.items()}
    found = list(calls)
    seen = {describe(a, k, limit=KEY_LIMIT) for a, k in calls}
    attempts = 0
    while len(found) < count and attempts < count * 10:
        attempts += 1
        try:
            base = rng.choice(calls if rng.random() < 0.5 else found)  # changes of changes too
            args, kwargs = copy.deepcopy(base)  # mutated in place below
        except Exception:
            continue
        args, kwargs = list(args), dict(kwargs)
        keys = list(range(len(args))) + list(kwargs)
        if not keys:
            break
        for key in rng.sample(keys, min(len(keys), rng.choice((1, 1, 2)))):
            if isinstance(key, int):
                args[key] = _mutate(rng, args[key], shapes[key])
            else:
                kwargs[key] = _mutate(rng, kwargs[key], shapes[key])
        try:
            text = describe(tuple(args), kwargs, limit=KEY_LIMIT)
        except Exception:
            continue
        if text not in seen:
            seen.add(text)
            found.append((tuple(args), kwargs))
    return found


# -- running ------------------------------------------------------------------------------------
def describe(args, kwargs, limit=MAX_REPR):
    """The arguments as a call shows them; objects by their attributes (see `_normal`)."""
    parts = [_normal(a) for a in args] + [f"{k}={_normal(v)}" for k, v in kwargs.items()]
    text = ", ".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _repr(value):
    try:
        return _ADDRESS.sub("", repr(value))
    except Exception:
        return f"<{type(value).__name__}>"


def _object_text(value, depth, seen):
    """`Node(value=1, successor=Node(...))`; an object met again on the way is `<cycle>`."""
    if id(value) in seen:
        return "<cycle>"
    if type(value).__repr__ is not object.__repr__:
        return _repr(value)
    seen = seen | {id(value)}
    fields = ", ".join(
        f"{k}={_normal(v, depth + 1, seen)}"
        for k, v in vars(value).items()
        if not k.startswith("__")
    )
    return f"{type(value).__name__}({fields})"


def _normal(value, depth=0, seen=frozenset()):
    """A text that two equal results share: floats to 9 digits, sets and dicts in a fixed
    order, objects by their attributes (no addresses)."""
    if depth > 20:
        return "..."
    if _is_object(value):
        return _object_text(value, depth, seen)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return repr(value)
        return format(value, ".9g")
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_normal(v, depth + 1, seen) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(_normal(v, depth + 1, seen) for v in value)) + "}"
    if isinstance(value, dict):
        items = sorted(
            f"{_normal(k, depth + 1, seen)}: {_normal(v, depth + 1, seen)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    return _repr(value)


class _Stop(BaseException):
    pass


_armed = {"on": False}  # an alarm that fires after the call ended must not raise


def _on_alarm(signum, frame):
    if _armed["on"]:
        _armed["on"] = False
        raise _Stop()


def _call(function, args, kwargs, cpu_s):
    """One call's outcome (see the module docstring)."""
    try:
        return _call_once(function, args, kwargs, cpu_s)
    except _Stop:  # the alarm fired between the call's end and its disarming
        return "timeout"


def _call_once(function, args, kwargs, cpu_s):
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    previous = signal.signal(signal.SIGVTALRM, _on_alarm), signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_VIRTUAL, cpu_s)
    signal.setitimer(signal.ITIMER_REAL, cpu_s * 5 + 0.5)
    out, err = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    _armed["on"] = True
    try:
        result = function(*args, **kwargs)
        if isinstance(result, types.GeneratorType):
            result = list(itertools.islice(result, 10000))
        outcome = "ok:" + _normal(result)[:2000] + SEPARATOR + _normal((args, kwargs))[:2000]
    except _Stop:
        outcome = "timeout"
    except RecursionError:
        outcome = "timeout"  # too deep for this interpreter: no answer, like a hang
    except Exception as error:
        outcome = "raise:" + type(error).__name__ + SEPARATOR + _message(error)
    finally:
        _armed["on"] = False
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGVTALRM, previous[0])
        signal.signal(signal.SIGALRM, previous[1])
        sys.stdout, sys.stderr = out, err
    return outcome


def _message(error):
    """The exception's text, as a user reads it: part of what a version does (a fix that
    raises the right error with another message is another answer); addresses dropped, as
    `_repr` drops them, so that runs compare."""
    try:
        text = str(error)
    except Exception:
        return "?"
    return _ADDRESS.sub("", text)[:MAX_REPR]


def call_limit(function, calls, most):
    """CPU seconds one call may take: 20 times the slowest of the original's recorded calls
    that finished (a version 20 times slower is treated as not answering), within 0.01..most."""
    slowest = 0.0
    for args, kwargs in calls[:10]:
        started = time.process_time()
        outcome = _call(function, args, kwargs, most)
        if outcome != "timeout":
            slowest = max(slowest, time.process_time() - started)
    return min(most, max(0.01, 20 * slowest))


def run_all(function, codes, inputs, cpu_s, budget_s):
    """{version id: [outcome per input]} with each code object of `codes` ({id: code})
    swapped in as `function.__code__` (restored after); a version past `budget_s` of CPU in
    all gets `timeout` for the inputs left."""
    original = function.__code__
    outcomes = {}
    try:
        for key, code in codes.items():
            function.__code__ = code
            started = time.process_time()
            found = []
            for args, kwargs in inputs:
                if time.process_time() - started > budget_s:
                    found.append("timeout")
                    continue
                found.append(_call(function, args, kwargs, cpu_s))
            outcomes[key] = found
    finally:
        function.__code__ = original
    return outcomes
