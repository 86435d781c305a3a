"""The caught-exception class widens a handler only by what a failing test ended with, and
only where that changes what is caught (search/classes/caught_exception.py)."""

from __future__ import annotations

from selfdebug.server.engine.evidence import Expected
from selfdebug.server.engine.search.edits import generate_edits

PARSE = """\
def parse_amount(text):
    try:
        return Decimal(text)
    except ValueError:
        return None
"""


def _edits(code: str, failed_with: tuple[str, ...], lines: tuple[int, ...] = (3,)) -> list[str]:
    edits = generate_edits(
        code,
        1,
        dict.fromkeys(lines, 0),
        limit=500,
        expected=Expected(failed_with=failed_with),
        classes={"caught-exception"},
    )
    return [e.code for e in edits]


def test_the_failing_tests_exception_is_added_to_the_handler_around_the_ranked_line() -> None:
    edits = _edits(PARSE, ("InvalidOperation",))
    assert edits == [PARSE.replace("except ValueError:", "except (ValueError, InvalidOperation):")]


def test_a_failed_assertion_adds_nothing() -> None:
    assert _edits(PARSE, ("AssertionError",)) == []


def test_a_try_away_from_the_ranked_lines_is_left_alone() -> None:
    code = "def f(x):\n    y = x + 1\n" + PARSE.split("\n", 1)[1].replace("Decimal(text)", "int(y)")
    assert _edits(code, ("TypeError",), lines=(2,)) == []


def test_what_a_handler_already_catches_is_not_added() -> None:
    lookup = PARSE.replace("ValueError", "LookupError")
    assert _edits(lookup, ("KeyError",)) == []  # KeyError is a LookupError
    everything = PARSE.replace("ValueError", "Exception")
    assert _edits(everything, ("TypeError",)) == []
    assert _edits(PARSE, ("ValueError",)) == []


def test_a_tuple_of_types_grows_by_one() -> None:
    code = PARSE.replace("except ValueError:", "except (ValueError, TypeError):")
    assert _edits(code, ("OverflowError",)) == [
        PARSE.replace("except ValueError:", "except (ValueError, TypeError, OverflowError):")
    ]


def test_a_library_exception_is_also_written_under_its_package_and_module() -> None:
    code = PARSE.replace("Decimal(text)", "json.load(open(text))").replace("ValueError", "OSError")
    edits = generate_edits(
        code,
        1,
        {3: 0},
        limit=500,
        expected=Expected(
            failed_with=("JSONDecodeError",), failed_from=("json.decoder.JSONDecodeError",)
        ),
        classes={"caught-exception"},
    )
    handlers = [e.code.splitlines()[3].strip() for e in edits]
    assert handlers == [
        "except (OSError, JSONDecodeError):",
        "except (OSError, json.JSONDecodeError):",
        "except (OSError, json.decoder.JSONDecodeError):",
    ]
