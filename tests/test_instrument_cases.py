"""Awkward inputs: every level must compile, strip back byte for byte and keep the line map."""

from __future__ import annotations

import ast
import re
import warnings

import pytest

from selfdebug.instrument import (
    LEVELS,
    AlreadyInstrumented,
    contains_probes,
    instrument_function,
    line_map,
    list_functions,
    strip,
)

CASES: dict[str, tuple[bytes, str]] = {
    "docstring": (b'def f(a):\n    """Doc.\n\n    More."""\n    b = a + 1\n    return b\n', "f"),
    "docstring_only": (b'def f():\n    """Only a docstring."""\n', "f"),
    "future_import": (
        b"from __future__ import annotations\n\n\ndef f(x: int) -> int:\n    return x * 2\n",
        "f",
    ),
    "global_nonlocal": (
        b"counter = 0\n\n\ndef outer():\n    global counter\n    counter += 1\n    hits = 0\n\n"
        b"    def inner():\n        nonlocal hits\n        hits += 1\n        return hits\n\n"
        b"    return inner() + counter\n",
        "outer.inner",
    ),
    "global_outer": (
        b"counter = 0\n\n\ndef outer():\n    global counter\n    counter += 1\n    hits = 0\n\n"
        b"    def inner():\n        nonlocal hits\n        hits += 1\n        return hits\n\n"
        b"    return inner() + counter\n",
        "outer",
    ),
    "generator": (
        b"def gen(n):\n    for i in range(n):\n        got = yield i\n        if got:\n"
        b"            return got\n    return (yield from range(2))\n",
        "gen",
    ),
    "async": (
        b"import asyncio\n\n\nasync def f(xs):\n    async with lock as held:\n        pass\n"
        b"    async for x in xs:\n        await asyncio.sleep(0)\n    return await g()\n",
        "f",
    ),
    "async_generator": (
        b"async def agen(n):\n    for i in range(n):\n        yield i\n    return\n",
        "agen",
    ),
    "walrus": (
        b"def f(data):\n    if (n := len(data)) > 3:\n        return n\n"
        b"    while (chunk := data[:2]):\n        data = data[2:]\n"
        b"    total = [y := 1, y + 1]\n    return [z for x in data if (z := x)]\n",
        "f",
    ),
    "match": (
        b"def f(cmd):\n    match cmd.split():\n        case [action]:\n            return action\n"
        b"        case [action, obj] if obj:\n            return action, obj\n"
        b"        case Point(x=0) as p:\n            return p\n        case _:\n            pass\n",
        "f",
    ),
    "try_finally": (
        b"def f(x):\n    try:\n        y = 1 / x\n    except ZeroDivisionError as error:\n"
        b"        return str(error)\n    else:\n        return y\n    finally:\n        x = None\n",
        "f",
    ),
    "one_line_compound": (
        b"def f(x):\n    if x: return 1\n    for i in x: x = i; y = 2\n    while x: break\n"
        b"    return(x)\n",
        "f",
    ),
    "loop_and_try_else": (
        b"def f(xs):\n    for x in xs:\n        if x:\n            break\n    else:\n"
        b"        x = None\n    while xs:\n        xs = xs[1:]\n    else:\n        pass\n"
        b"    try:\n        y = 1\n    except* ValueError:\n        y = 2\n    else:\n"
        b"        y = 3\n    return x, y\n",
        "f",
    ),
    "one_line_def": (b"def f(): return 1\n", "f"),
    "one_line_def_bare": (b"class A:\n    def f(self): return\n", "A.f"),
    "semicolons": (b"def f():\n    a = 1; b = 2;\n    c = 3 ; d = 4  # note\n    return a\n", "f"),
    "continuations": (
        b"def f(a,\n      b):\n    total = a + \\\n        b\n    if a and \\\n       b:\n"
        b"        return \\\n            total\n    x = (1,\n         2)\n    return x\n",
        "f",
    ),
    "tabs": (b"class A:\n\tdef f(self, x):\n\t\tfor i in x:\n\t\t\tx = i\n\t\treturn x\n", "A.f"),
    "crlf": (
        b"def f(a):\r\n    b = a\r\n    if b:\r\n        return b\r\n    return None\r\n",
        "f",
    ),
    "no_final_newline": (b"def f(a):\n    b = a\n    c = b", "f"),
    "no_final_newline_crlf": (b"def f(a):\r\n    for i in a:\r\n        b = i", "f"),
    "non_ascii": (
        'def größe(straße, 名前=\'ü\'):\n    """Ünïcödé 🎉."""\n    länge = len(straße)\n'
        "    for zeichen in 名前:\n        länge += 1\n    return f'{länge} 🎉'\n".encode(),
        "größe",
    ),
    "latin1_cookie": (
        "# -*- coding: latin-1 -*-\ndef f(x):\n    s = 'café'\n    return s + x\n".encode(
            "latin-1"
        ),
        "f",
    ),
    "koi8r_cookie": (
        "# coding: koi8-r\ndef f():\n    привет = 'мир'\n    return привет\n".encode("koi8-r"),
        "f",
    ),
    "bom": (b"\xef\xbb\xbfdef f(a):\n    b = a\n    return b\n", "f"),
    "decorators": (
        b"import functools\n\n\nclass A:\n    @staticmethod\n    @functools.cache\n"
        b"    def f(x):\n        return x\n\n    @property\n    def g(self):\n        return 1\n",
        "A.f",
    ),
    "form_feed": (b"def f():\n    a = 1\n\x0c\n    return a\n", "f"),
    "comments_first": (
        b"def f(a):\n    # comment first\n    b = a  # trailing\n    return b\n",
        "f",
    ),
    "annotated": (b"def f():\n    x: int\n    y: int = 2\n    (z) = 3\n    w = v = 4\n", "f"),
    "lambda_and_class_inside": (
        b"def f(xs):\n    key = lambda x: x\n    class Local:\n        def m(self):\n"
        b"            return 1\n    return sorted(xs, key=key)\n",
        "f",
    ),
}


def _compiles(source: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(source, "<case>", "exec", dont_inherit=True)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_instrument_strip_exact_and_compiles(case: str, level: str) -> None:
    source, qualname = CASES[case]
    _compiles(source)
    instrumented = instrument_function(source, qualname, level)
    assert instrumented != source
    assert contains_probes(instrumented) and not contains_probes(source)
    _compiles(instrumented)
    assert strip(instrumented) == source
    # every original line keeps its place in the map; inserted ones point at real lines
    mapping = line_map(instrumented)
    assert len(mapping) == len(instrumented.splitlines())
    original_lines = source.splitlines()
    inserted = 0
    for number, line in enumerate(instrumented.splitlines(), 1):
        if contains_probes(line) and line.rstrip().endswith(b"# selfdebug-probe"):
            inserted += 1
            assert 1 <= mapping[number - 1] <= len(original_lines)
        else:
            assert mapping[number - 1] == number - inserted


def test_levels_add_probes_progressively() -> None:
    source, qualname = CASES["walrus"]
    sizes = [len(instrument_function(source, qualname, level)) for level in LEVELS]
    assert sizes[0] < sizes[1] < sizes[2]


def test_only_the_target_function_changes() -> None:
    source, _ = CASES["global_outer"]
    instrumented = instrument_function(source, "outer.inner", "lines")
    outer_lines = [line for line in instrumented.splitlines() if b"hit(" in line]
    assert all(line.startswith(b"        ") for line in outer_lines)  # inner's indentation only


def test_docstring_stays_the_docstring_and_future_import_stays_first() -> None:
    source, _ = CASES["docstring"]
    tree = ast.parse(instrument_function(source, "f", "lines"))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert ast.get_docstring(function, clean=False) == "Doc.\n\n    More."
    source, _ = CASES["future_import"]
    instrumented = instrument_function(source, "f", "lines")
    assert instrumented.startswith(b"from __future__ import annotations\n")


def test_return_value_is_wrapped_not_recomputed() -> None:
    source = b"def f(it):\n    return next(it)\n"
    instrumented = instrument_function(source, "f", "entry-return")
    assert instrumented.count(b"next(it)") == 1


def test_tabs_and_crlf_are_kept() -> None:
    source, _ = CASES["tabs"]
    instrumented = instrument_function(source, "A.f", "lines")
    for line in instrumented.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        assert b" " not in indent
    source, _ = CASES["crlf"]
    instrumented = instrument_function(source, "f", "lines")
    assert instrumented.count(b"\n") == instrumented.count(b"\r\n")


def test_latin1_file_stays_latin1() -> None:
    source, _ = CASES["latin1_cookie"]
    instrumented = instrument_function(source, "f", "lines")
    assert "café".encode("latin-1") in instrumented
    assert instrumented.decode("latin-1").isprintable() is False  # still bytes of latin-1
    with pytest.raises(UnicodeDecodeError):
        instrumented.decode("utf-8")


def test_instrumenting_twice_is_refused() -> None:
    source, _ = CASES["docstring"]
    once = instrument_function(source, "f", "blocks")
    with pytest.raises(AlreadyInstrumented):
        instrument_function(once, "f", "blocks")


def test_every_function_of_a_file_roundtrips() -> None:
    source, _ = CASES["decorators"]
    names = [location.qualname for location in list_functions(source)]
    assert names == ["A.f", "A.g"]
    for location in list_functions(source):
        for level in LEVELS:
            assert strip(instrument_function(source, location, level)) == source


def test_nested_functions_get_probes_that_name_the_files_lines():
    source = (
        b"def outer(xs):\n"
        b"    total = 0\n"
        b"    def add(x):\n"
        b"        y = x * 2\n"
        b"        return y\n"
        b"    for x in xs:\n"
        b"        total += add(x)\n"
        b"    return total\n"
    )
    probed = instrument_function(source, "outer", "lines")
    assert strip(probed) == source
    calls = [line for line in probed.decode().splitlines() if "selfdebug-probe" in line]
    assert any("hit(" in c and ', 4, "assign", ("y",))' in c for c in calls)  # line 4 of the file
    assert any(".watch(" in c and ", 3)" in c for c in calls)  # add's def line
    ids = [int(i) for i in re.findall(r"\.(?:hit|ret|watch)\((\d+),", probed.decode())]
    assert len(ids) == len(set(ids))  # one id per probe across the passes
    untouched = instrument_function(source, "outer", "lines", nested=False).decode()
    assert "        y = x * 2\n        return y\n" in untouched
