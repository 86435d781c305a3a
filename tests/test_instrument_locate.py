"""Locating functions: qualified names, cursor positions (UTF-16), decorators, clear errors."""

from __future__ import annotations

import pytest

from selfdebug.instrument import (
    FunctionNotFound,
    SourceSyntaxError,
    instrument_function,
    list_functions,
    locate_at,
    locate_function,
)
from selfdebug.instrument.source import parse

SOURCE = (
    "import functools\n"  # 0
    "\n"  # 1
    "class Shop:\n"  # 2
    "    @functools.cache\n"  # 3
    "    @staticmethod\n"  # 4
    "    def price(item):\n"  # 5
    '        """Price of item."""\n'  # 6
    "        def tax(x): return x * 0.2\n"  # 7
    "        return tax(1)\n"  # 8
    "\n"  # 9
    "    async def fetch(self, ключ='🎉'):\n"  # 10
    "        s = '🎉🎉'; t = ключ\n"  # 11
    "        return await s\n"  # 12
    "\n"  # 13
    "def outer():\n"  # 14
    "    def inner():\n"  # 15
    "        pass\n"  # 16
    "    return inner\n"  # 17
).encode()


def test_locate_method_with_decorators() -> None:
    location = locate_function(SOURCE, "Shop.price")
    assert location.qualname == "Shop.price" and location.name == "price"
    assert (location.start_line, location.def_line, location.end_line) == (3, 5, 9)
    assert SOURCE[location.start_byte :].startswith(b"@functools.cache")
    assert SOURCE[location.def_start_byte :].startswith(b"def price(item):")
    assert SOURCE[: location.end_byte].endswith(b"return tax(1)")
    assert SOURCE[location.body_start_byte :].startswith(b'"""Price of item."""')
    assert location.decorator_count == 2 and location.is_method and not location.is_async
    assert location.lsp_range.to_dict() == {
        "start": {"line": 3, "character": 4},
        "end": {"line": 8, "character": 21},
    }


def test_locate_nested_one_line_and_async() -> None:
    tax = locate_function(SOURCE, "Shop.price.tax")
    assert tax.one_line_body and tax.def_line == 7 and not tax.is_method
    assert locate_function(SOURCE, "Shop.price.<locals>.tax") == tax
    assert locate_function(SOURCE, "pkg/shop.py::Shop.price.tax") == tax
    fetch = locate_function(SOURCE, "Shop.fetch")
    assert fetch.is_async and SOURCE[fetch.def_start_byte :].startswith(b"async def fetch")
    assert fetch.name_lsp_range.start.character == 14
    assert [f.qualname for f in list_functions(SOURCE)] == [
        "Shop.price", "Shop.price.tax", "Shop.fetch", "outer", "outer.inner"
    ]  # fmt: skip


def test_lsp_columns_are_utf16() -> None:
    fetch = locate_function(SOURCE, "Shop.fetch")
    # line 12 has no wide characters; line 11 ends with two astral characters in the string
    assert fetch.lsp_range.end == type(fetch.lsp_range.end)(12, 22)
    source = "def f():\n    s = '🎉'; return s\n".encode()
    location = locate_function(source, "f")
    line = "    s = '🎉'; return s"
    assert location.lsp_range.end.character == len(line.encode("utf-16-le")) // 2  # 23, not 21
    assert location.lsp_range.end.character == len(line) + 1


def test_locate_at_cursor_finds_the_innermost_def() -> None:
    text = SOURCE.decode()
    lines = text.splitlines()
    assert locate_at(SOURCE, 7, lines[7].index("x * 0.2")).qualname == "Shop.price.tax"
    assert locate_at(SOURCE, 8, 10).qualname == "Shop.price"
    assert locate_at(SOURCE, 3, 6).qualname == "Shop.price"  # on a decorator
    assert locate_at(SOURCE, 5, 0).qualname == "Shop.price"  # in the indentation of the def
    # after the two astral characters: UTF-16 column 20 is byte column 24
    column = len(lines[11][: lines[11].index("t = ")].encode("utf-16-le")) // 2
    assert locate_at(SOURCE, 11, column).qualname == "Shop.fetch"
    assert locate_at(SOURCE, 16, 8).qualname == "outer.inner"
    assert locate_at(SOURCE, 0, 3) is None  # the import
    assert locate_at(SOURCE, 2, 3) is None  # the class line
    assert locate_at(SOURCE, 500, 0) is None


def test_locate_at_the_end_of_a_functions_last_line_still_finds_it() -> None:
    """Users often click at the end of a line: that is still inside the function."""
    source = b"def mean(xs):\n    return sum(xs) / len(xs)\n\nx = 1\n"
    last = "    return sum(xs) / len(xs)"
    for column in (len(last), len(last) + 5):
        found = locate_at(source, 1, column)
        assert found is not None and found.qualname == "mean"
    assert locate_at(source, 2, 0) is None  # the blank line after it
    assert locate_at(source, 3, 5) is None  # module code


def test_missing_function_names_the_known_ones() -> None:
    with pytest.raises(FunctionNotFound) as caught:
        locate_function(SOURCE, "Shop.nothing")
    assert "Shop.nothing" in str(caught.value) and "Shop.price" in str(caught.value)
    with pytest.raises(FunctionNotFound):
        instrument_function(SOURCE, "outer.tax", "blocks")


def test_syntax_errors_are_clear_and_carry_the_line() -> None:
    broken = b"def ok():\n    return 1\n\ndef bad(:\n    return 2\n"
    assert locate_function(broken, "ok").name == "ok"  # the broken part is elsewhere
    with pytest.raises(SourceSyntaxError) as caught:
        locate_function(broken, "bad")
    assert caught.value.line == 4 and "line 4" in str(caught.value)
    with pytest.raises(SourceSyntaxError) as caught:
        instrument_function(broken, "ok", "blocks")  # never instrument a broken file
    assert caught.value.line == 4
    with pytest.raises(SourceSyntaxError):
        locate_function(b"def f(:\n  x = [\n", "missing")
    with pytest.raises(SourceSyntaxError):  # a bad PEP 263 cookie
        locate_function(b"# -*- coding: no-such-codec -*-\ndef f(): pass\n", "f")


def test_latin1_offsets_are_file_bytes() -> None:
    source = "# -*- coding: latin-1 -*-\ns = 'éé'\ndef f(x='é'):\n    return x\n".encode("latin-1")
    location = locate_function(source, "f")
    assert source[location.def_start_byte :].startswith(b"def f(x='\xe9'):")
    assert source[: location.end_byte].endswith(b"return x")
    assert location.name_lsp_range.start.character == 4


def test_text_is_already_decoded() -> None:
    """A str is an editor's text: its declaration no longer applies (its UTF-8 bytes read as
    cp1252 fail: that codec has no character for 0x81, the second byte of "Á"); offsets are
    in its UTF-8 bytes. `parse` itself still takes only a file's bytes."""
    text = "# -*- coding: cp1252 -*-\ns = 'Á'\ndef f(x='é'):\n    return x\n"
    location = locate_function(text, "f")
    data = text.encode("utf-8")
    assert data[location.def_start_byte :].startswith("def f(x='é'):".encode())
    assert location.name_lsp_range.start.character == 4
    with pytest.raises(SourceSyntaxError):
        locate_function(data, "f")
    with pytest.raises(TypeError):
        parse("def f(): pass")  # type: ignore[arg-type]
