"""A huge message decoded in slices is what `json.loads` makes of it (server/lsp/json_slices.py),
whatever falls on a slice's edge: escapes, backslash runs, surrogate pairs, UTF-8."""

from __future__ import annotations

import json
import random

import pytest

from selfdebug.server.lsp import json_slices

PIECES = ["a", "\n", "\\", '"', "é", "😀", "\t", "\u2028", "\\n", "\\\\n", "\x00", "x" * 40]


def message(text: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": "file:///p/big.py", "version": 7},
            "contentChanges": [{"text": text}, {"text": text[::-1], "range": None}],
            "more": [1, 2.5, True, None, "short", {text[:5]: "a key from the text"}],
        },
    }


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ascii_only", [True, False])
def test_slices_decode_to_what_json_loads_gives(seed: int, ascii_only: bool) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3000)))
    body = json.dumps(message(text), ensure_ascii=ascii_only).encode()
    for slice_chars in (7, 64, 1000):
        pauses: list[int] = []
        decoded = json_slices.loads(body, slice_chars, pause=lambda: pauses.append(1))  # noqa: B023
        assert decoded == json.loads(body)
        if len(body) > 4 * slice_chars and text.count("\n") > 4:
            assert pauses  # the loop got its turns


def test_a_long_text_of_one_line_is_read_whole() -> None:
    body = json.dumps(message("x" * 20_000 + "é" * 20_000)).encode()
    assert json_slices.loads(body, 1000) == json.loads(body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": "' + b"x\\n" * 5000 + b'\\q"}',  # a bad escape deep in a long string
        b'{"a": "' + b"x\\n" * 5000 + b'"',  # the object never closed
        b'{"a": "' + b"x\\n" * 5000,  # the string never closed
        b'{"a": "' + b"x\\n" * 5000 + b'"} trailing',
        b'{"a": "' + b"x\\n" * 5000 + b'\x01"}',  # a raw control character
        b'{"a": "\xff' + b"x\\n" * 5000 + b'"}',  # not UTF-8
    ],
)
def test_what_json_loads_refuses_the_slices_refuse(body: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(body)
    with pytest.raises(ValueError):
        json_slices.loads(body, 64)
