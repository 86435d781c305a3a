"""A user's file read and written the way Python does (issue 51): a UTF-8 file with a BOM and a
file with a PEP 263 declaration (Latin-1, CRLF line endings) are debugged and fixed by the real
CLI, and the written file differs from the original only on the fix's line, byte for byte: the
BOM, the encoding and the line endings kept."""

from __future__ import annotations

import codecs
import os
import subprocess
import sys
from pathlib import Path

import pytest

from selfdebug.instrument import locate_at
from selfdebug.server.lsp.edits import fixed_function_text, function_hash_in, take_snapshot
from selfdebug.server.lsp.workspace_files import read_unopened
from selfdebug.server.runner.source_files import (
    decode_source,
    encode_declared,
    encode_like,
    read_source,
    rewrite_source,
)

BOM = codecs.BOM_UTF8
BOM_MODULE = (
    '"""Les âges."""\n\n\ndef is_adult(age):\n    """Majeur à 18 ans."""\n    return age > 18\n'
)
BOM_TESTS = (
    "from ages import is_adult\n\n\n"
    "def test_eighteen():\n    assert is_adult(18)\n\n\n"
    "def test_seventeen():\n    assert not is_adult(17)\n\n\n"
    "def test_thirty():\n    assert is_adult(30)\n"
)
LATIN1_MODULE = (
    "# -*- coding: latin-1 -*-\n"
    '"""Résumé des notes."""\n'
    "\n"
    "\n"
    "def grade(score):\n"
    '    """« Reçu » à partir de 10."""\n'
    "    if score > 10:\n"
    '        return "reçu"\n'
    '    return "échec"\n'
)
LATIN1_TESTS = (
    "from notes import grade\n\n\n"
    'def test_ten():\n    assert grade(10) == "reçu"\n\n\n'
    'def test_nine():\n    assert grade(9) == "échec"\n\n\n'
    'def test_fifteen():\n    assert grade(15) == "reçu"\n'
)


def _write_project(root: Path, module: str, data: bytes, tests: str) -> Path:
    root.mkdir()
    (root / f"{module}.py").write_bytes(data)
    (root / f"test_{module}.py").write_text(tests, encoding="utf-8")
    return root / f"{module}.py"


def selfdebug(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )


# -- the pair of functions --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (BOM + BOM_MODULE.encode(), "utf-8-sig"),
        (LATIN1_MODULE.replace("\n", "\r\n").encode("latin-1"), "iso8859-1"),
        (BOM_MODULE.encode(), "utf-8"),
    ],
)
def test_read_then_encode_gives_the_same_bytes(tmp_path: Path, data: bytes, encoding: str) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(data)
    text, found = read_source(path)
    assert found == encoding
    assert not text.startswith("\ufeff")
    compile(text, str(path), "exec")  # what failed: "invalid non-printable character U+FEFF"
    assert encode_like(text, found) == data
    rewrite_source(path, text)
    assert path.read_bytes() == data


def test_a_bad_declaration_raises_as_python_does() -> None:
    with pytest.raises(SyntaxError):
        decode_source(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    assert decode_source(b"# -*- coding: no-such-codec -*-\nx = 1\n", errors="replace")[1] == (
        "utf-8"
    )


def test_a_text_is_encoded_by_its_own_declaration() -> None:
    """What the shadow copy writes for an override: Python reads back the same text."""
    text = LATIN1_MODULE
    data = encode_declared(text)
    assert data == text.encode("latin-1")
    assert decode_source(data)[0] == text
    assert encode_declared("x = 'é'\n") == "x = 'é'\n".encode()


def test_an_editors_text_is_not_decoded_again(tmp_path: Path) -> None:
    """The editor's text (and a file it has not open, read as Python reads it) is already
    decoded: its declaration no longer applies. Its UTF-8 bytes were parsed as cp1252, which
    has no character for 0x81 (the second byte of "Á")."""
    text = "# -*- coding: cp1252 -*-\r\nNAME = 'Á'\r\n\r\n\r\ndef f():\r\n    return NAME\r\n"
    path = tmp_path / "m.py"
    path.write_bytes(text.encode("cp1252"))
    assert read_unopened(path) == text  # its CRLF kept: the editor's document of the file
    location = locate_at(text, 5, 6)
    assert location is not None and location.qualname == "f"
    snapshot = take_snapshot("file:///m.py", path, 1, text, "f")
    assert snapshot.function_text == b"def f():\r\n    return NAME"
    assert function_hash_in(text, "f") == snapshot.function_hash
    fixed = text.replace("return NAME", "return NAME * 2")
    assert fixed_function_text(snapshot, fixed, None) == "def f():\r\n    return NAME * 2"


# -- the real CLI -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("module", "data", "tests"),
    [
        ("ages", BOM + BOM_MODULE.encode(), BOM_TESTS),
        ("notes", LATIN1_MODULE.replace("\n", "\r\n").encode("latin-1"), LATIN1_TESTS),
    ],
    ids=["utf8-bom", "latin1-crlf"],
)
def test_fix_write_keeps_the_files_bytes_outside_the_fix(
    tmp_path: Path, module: str, data: bytes, tests: str
) -> None:
    file = _write_project(tmp_path / "proj", module, data, tests)
    function = "is_adult" if module == "ages" else "grade"
    done = selfdebug(
        ["fix", f"{module}.py::{function}", "--mode", "search", "--write"], file.parent
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "written to" in done.stdout
    written = file.read_bytes()
    before, after = data.splitlines(keepends=True), written.splitlines(keepends=True)
    assert len(after) == len(before)
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert len(changed) == 1, written  # the fix's line only; every other line byte-identical
    fixed = after[changed[0]]
    assert b"return age" in fixed or b"if score" in fixed
    assert fixed.endswith(b"\r\n" if b"\r\n" in data else b"\n")  # the file's line ending
    assert written.startswith(BOM) == data.startswith(BOM)
    # the written file is still Python in its encoding, and the tests pass on it
    passed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=file.parent,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
