"""validate_model_prints: prints-only changes pass (and become side-channel calls), others fail."""

from __future__ import annotations

from selfdebug.instrument import contains_probes, instrument_function, strip, validate_model_prints

ORIGINAL = '''def total(items):
    """Sum of prices."""
    result = 0
    for item in items:
        result += item.price
    print("done")
    return result
'''


def _model(*insertions: tuple[str, str]) -> str:
    text = ORIGINAL
    for after, added in insertions:
        assert after in text
        text = text.replace(after, after + added, 1)
    return text


def test_added_prints_are_accepted_and_redirected() -> None:
    model = _model(
        ("for item in items:\n", "        print('item', item)\n"),
        (
            "result += item.price\n",
            "        print(\n            result,\n            sep=''\n        )\n",
        ),
    )
    checked = validate_model_prints(ORIGINAL, model, first_line=10)
    assert checked.ok, checked.reason
    assert checked.added == 2 and checked.added_lines == [5, 7]
    instrumented = checked.instrumented
    assert "print('item', item)" not in instrumented
    assert "_selfdebug_probe_rt_v1.print_(0, 13, 'item', item)" in instrumented  # after `for`
    assert 'print("done")' in instrumented  # the original's own print is left alone
    assert contains_probes(instrumented)
    compile(instrumented, "<model>", "exec")
    assert strip(instrumented.encode()).decode() == model


def test_identical_code_is_accepted_with_nothing_added() -> None:
    checked = validate_model_prints(ORIGINAL, ORIGINAL)
    assert checked.ok and checked.added == 0 and checked.instrumented == ORIGINAL


def test_only_trailing_whitespace_line_endings_and_blank_lines_are_forgiven() -> None:
    model = _model(("result = 0\n", "\n    print(result)\n")).replace("\n", "   \r\n")
    checked = validate_model_prints(ORIGINAL, model + "\r\n\r\n")
    assert checked.ok, checked.reason
    assert checked.added == 1


def test_changed_code_is_rejected_naming_the_line() -> None:
    model = _model(("for item in items:\n", "        print(item)\n")).replace(
        "result += item.price", "result += item.price * 2"
    )
    checked = validate_model_prints(ORIGINAL, model)
    assert not checked.ok and checked.instrumented == ""
    assert "model line 6" in checked.reason and "original line 5" in checked.reason
    assert "result += item.price * 2" in checked.reason


def test_rejects_other_kinds_of_change() -> None:
    cases = {
        "removed line": ORIGINAL.replace('    print("done")\n', ""),
        "added statement": _model(("result = 0\n", "    result = 1\n")),
        "print with side effects elsewhere": _model(("result = 0\n", "    print(x); x = 1\n")),
        "print inline in a compound": _model(("result = 0\n", "    if result: print(result)\n")),
        "logging instead of print": _model(("result = 0\n", "    log(result)\n")),
        "print bound to something else": _model(("result = 0\n", "    x = print(result)\n")),
        "syntax error": _model(("result = 0\n", "    print(result\n")),
        "probes inside": instrument_function(ORIGINAL.encode(), "total", "blocks").decode(),
    }
    for what, model in cases.items():
        checked = validate_model_prints(ORIGINAL, model)
        assert not checked.ok, what
        assert checked.reason, what


def test_layout_comments_and_the_docstring_are_compared_by_syntax() -> None:
    """A model that reflows a line, adds a comment or drops the docstring changed nothing the
    program does: its version is used (each print logged at the statement it follows)."""
    cases = {
        "re-spaced": ORIGINAL.replace("    return result", "    return  result"),
        "added comment": _model(("result = 0\n", "    # note\n")),
        "dropped docstring": ORIGINAL.replace('    """Sum of prices."""\n', ""),
    }
    for what, model in cases.items():
        with_print = model.replace("        result +=", "        print(item)\n        result +=")
        checked = validate_model_prints(ORIGINAL, with_print, first_line=10)
        assert checked.ok, (what, checked.reason)
        assert checked.added == 1, what
        # logged at the original `for` line (file line 10 + 3), which the print follows
        assert "_selfdebug_probe_rt_v1.print_(0, 13, item)" in checked.instrumented, what
        compile(checked.instrumented, "<model>", "exec")


def test_blank_line_inside_a_string_is_a_change() -> None:
    original = 'def f():\n    s = """a\nb"""\n    return s\n'
    model = 'def f():\n    s = """a\n\nb"""\n    return s\n'
    assert not validate_model_prints(original, model).ok


def test_prints_in_an_indented_method_and_a_one_line_docstring_function() -> None:
    original = "    def m(self):\n        '''Doc.'''; x = 1\n        return x\n"
    model = "    def m(self):\n        '''Doc.'''; x = 1\n        print(x)\n        return x\n"
    checked = validate_model_prints(original, model)
    assert checked.ok, checked.reason
    # no line can hold the import (docstring shares its line): the inline form is used
    assert '__import__("_selfdebug_probe_rt_v1").print_(0, 2, x)' in checked.instrumented
    compile("class A:\n" + checked.instrumented, "<m>", "exec")
    assert strip(checked.instrumented.encode()).decode() == model
