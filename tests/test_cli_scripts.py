"""The CLI for scripts (issue 52 item 5): `selfdebug fix --json` prints one JSON object on
stdout, `fix --save-patch FILE` saves the fix and `selfdebug apply FILE` writes it without a
new session, only over the bytes it was made from. Real `selfdebug` processes on small
projects, `--mode search` (no model)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.bounds_project import bounds_project

from selfdebug.exit_codes import ExitCode

# `range(1, n)` should be `range(1, n + 1)`; a BOM and CRLF line endings, kept by the fix
SUM_TO = (
    b"\xef\xbb\xbf# -*- coding: utf-8 -*-\r\n"
    b"def sum_to(n):\r\n"
    b'    """1 + 2 + ... + n, \xc3\xa0 la main."""\r\n'
    b"    total = 0\r\n"
    b"    for i in range(1, n):\r\n"
    b"        total += i\r\n"
    b"    return total\r\n"
    b"\r\n\r\n"
    b"def greeting(name):\r\n"
    b'    return "Goodbye"\r\n'
)
SUM_TO_TESTS = (
    "from calc import greeting, sum_to\n\n\n"
    "def test_three():\n    assert sum_to(3) == 6\n\n\n"
    "def test_one():\n    assert sum_to(1) == 1\n\n\n"
    "def test_greeting():\n    assert greeting('Ada') == 'Hello, Ada!'\n"
)
SUM_TO_FIX = ["calc.py::sum_to", "--test", "test_calc.py::test_three", "--test",
              "test_calc.py::test_one", "--mode", "search"]  # fmt: skip


def _calc(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0"\n')
    (root / "calc.py").write_bytes(SUM_TO)
    (root / "test_calc.py").write_text(SUM_TO_TESTS)
    return root


def selfdebug(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "SELFDEBUG_SCRIPTED_REPLIES"}
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=cwd,
        env={**environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def fix_json(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    """`selfdebug fix ... --json`: its stdout is one JSON object, nothing else."""
    done = selfdebug("fix", *args, "--json", cwd=cwd)
    try:
        return done, json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"stdout is not one JSON object:\n{done.stdout}\n--- stderr:\n{done.stderr}")


# -- fix --json --
def test_fix_json_of_a_fixed_function(tmp_path):
    root = _calc(tmp_path / "calc")
    done, found = fix_json(*SUM_TO_FIX, cwd=root)
    assert done.returncode == ExitCode.OK, done.stderr
    assert found["selfdebug_fix"] == 1
    assert (found["verdict"], found["exit_code"], found["form"]) == ("fixed", 0, "function")
    assert found["target"] == {"file": "calc.py", "qualname": "sum_to"}
    assert found["functions"] == ["calc.py::sum_to"] and found["files"] == ["calc.py"]
    assert "-    for i in range(1, n):\r\n+    for i in range(1, n + 1):\r\n" in found["diff"]
    assert found["evidence"].startswith("passes 2/2 chosen, 2/3 wider; found by edit search")
    assert found["tests"]["chosen_before"] == {"passed": 0, "total": 2}
    assert found["tests"]["chosen_after"] == {"passed": 2, "total": 2}
    assert found["found_by"] == "edit search at line 5" and found["stop_reason"] == "passed"
    assert found["written"] is False and found["patch"] is None
    timings = found["timings"]
    assert timings["seconds"] >= timings["session_seconds"] > 0
    assert timings["model_seconds"] is None and timings["model_calls"] == 0  # no model
    assert "Fix found. Run again with --write" in done.stderr  # the text report, on stderr
    assert (root / "calc.py").read_bytes() == SUM_TO


# `hi - 1` should be `hi`; `hi + 1` passes the two tests too and differs from it on clip(3, 2)
CLIP = "def clip(x, hi):\n    return min(x, hi - 1)\n"
CLIP_TESTS = (
    "from clip import clip\n\n\n"
    "def test_at_the_top():\n    assert clip(7, 7) == 7\n\n\n"
    "def test_below():\n    assert clip(3, 5) == 3\n"
)


def test_fix_json_names_the_fixes_that_pass_and_the_input_that_separates_them(tmp_path):
    root = tmp_path / "clip"
    root.mkdir()
    (root / "clip.py").write_text(CLIP)
    (root / "test_clip.py").write_text(CLIP_TESTS)
    done, found = fix_json("clip.py::clip", "--test", "test_clip.py::test_at_the_top",
                           "--wider-test", "test_clip.py::test_below", "--mode", "search",
                           cwd=root)  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    assert found["verdict"] == "fixed"
    alternatives = found["alternatives"]
    assert len(alternatives["edits"]) == 2
    assert alternatives["separating_input"].startswith("clip(")
    assert len(set(alternatives["results"])) == 2  # what each one gives there
    assert found["caveat"].startswith("2 fixes pass; they differ on clip(")
    assert found["caveat"] in found["evidence"]


def test_fix_json_without_a_fix(tmp_path):
    root = _calc(tmp_path / "calc")
    done, found = fix_json("calc.py::greeting", "--test", "test_calc.py::test_greeting",
                           "--mode", "search", cwd=root)  # fmt: skip
    assert done.returncode == ExitCode.NO_FIX, done.stderr
    assert (found["verdict"], found["exit_code"]) == ("no_fix", 1)
    assert found["target"] == {"file": "calc.py", "qualname": "greeting"}
    assert found["diff"] == "" and found["files"] == [] and found["alternatives"] is None
    assert found["evidence"].startswith("no candidate; the original passes 0/1 chosen")
    assert found["written"] is False
    assert "No candidate passes the chosen tests" in done.stderr


def test_fix_json_of_a_usage_error_is_one_object_too(tmp_path):
    root = _calc(tmp_path / "calc")
    done, found = fix_json("nowhere.py::sum_to", "--mode", "search", cwd=root)
    assert done.returncode == ExitCode.USAGE
    assert (found["verdict"], found["exit_code"], found["target"]) == ("usage_error", 2, None)
    assert "no such file: nowhere.py" in done.stderr


# -- fix --save-patch, apply --
@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, Path]:
    """One project fixed twice: `fix --write` in "written", `fix --save-patch` in "saved"
    (its patch: "patch"), and an untouched copy, "pristine", for the tests to copy."""
    base = tmp_path_factory.mktemp("patches")
    pristine = _calc(base / "pristine")
    written = shutil.copytree(pristine, base / "written")
    done = selfdebug("fix", *SUM_TO_FIX, "--write", cwd=written)
    assert done.returncode == ExitCode.OK, done.stdout + done.stderr
    copy = shutil.copytree(pristine, base / "saved")
    done = selfdebug("fix", *SUM_TO_FIX, "--save-patch", "fix.json", cwd=copy)
    assert done.returncode == ExitCode.OK, done.stdout + done.stderr
    assert "Fix saved to fix.json" in done.stdout
    return {"pristine": pristine, "written": written, "saved": copy, "patch": copy / "fix.json"}


def test_a_saved_fix_applied_writes_the_bytes_fix_write_writes(saved, tmp_path):
    copy = saved["saved"]
    assert (copy / "calc.py").read_bytes() == SUM_TO  # saving writes no source
    patch = json.loads(saved["patch"].read_text(encoding="utf-8"))
    assert patch["selfdebug_patch"] == 1 and patch["qualname"] == "sum_to"
    assert patch["evidence"].startswith("passes 2/2 chosen")
    (entry,) = patch["files"]
    assert entry["path"] == "calc.py"
    assert entry["sha256"] == hashlib.sha256(SUM_TO).hexdigest()
    assert "+    for i in range(1, n + 1):" in entry["diff"]
    done = selfdebug("apply", "fix.json", cwd=copy)
    assert done.returncode == ExitCode.OK, done.stderr
    expected = (saved["written"] / "calc.py").read_bytes()
    assert expected != SUM_TO and expected.startswith(b"\xef\xbb\xbf")  # the BOM kept
    assert b"range(1, n + 1):\r\n" in expected  # and the CRLF line endings
    assert (copy / "calc.py").read_bytes() == expected
    assert base64.b64decode(entry["content_base64"]) == expected
    # from elsewhere, with --root; and once more: it holds the fix already, nothing to do
    other = shutil.copytree(saved["pristine"], tmp_path / "other")
    done = selfdebug("apply", str(saved["patch"]), "--root", str(other), cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    assert (other / "calc.py").read_bytes() == expected
    done = selfdebug("apply", str(saved["patch"]), "--root", str(other), cwd=tmp_path)
    assert done.returncode == ExitCode.OK and "already holds the fix" in done.stdout


def test_apply_refuses_a_file_changed_since_the_fix_was_saved(saved, tmp_path):
    root = shutil.copytree(saved["pristine"], tmp_path / "edited")
    edited = SUM_TO.replace(b"return total", b"return total  # the user's edit")
    (root / "calc.py").write_bytes(edited)
    done = selfdebug("apply", str(saved["patch"]), cwd=root)
    assert done.returncode == ExitCode.NOT_WRITTEN, done.stderr
    assert "calc.py changed since the fix was saved; run the session again" in done.stderr
    assert (root / "calc.py").read_bytes() == edited


def test_apply_writes_all_files_or_none(saved, tmp_path):
    """A fix of two files, one of them changed since: neither is written."""
    root = shutil.copytree(saved["pristine"], tmp_path / "two")
    patch = json.loads(saved["patch"].read_text(encoding="utf-8"))
    (root / "other.py").write_text("X = 2\n")  # was "X = 1\n" when the fix was made
    patch["files"].append({
        "path": "other.py",
        "sha256": hashlib.sha256(b"X = 1\n").hexdigest(),
        "content_base64": base64.b64encode(b"X = 3\n").decode(),
    })  # fmt: skip
    (tmp_path / "two.json").write_text(json.dumps(patch))
    done = selfdebug("apply", str(tmp_path / "two.json"), cwd=root)
    assert done.returncode == ExitCode.NOT_WRITTEN, done.stderr
    assert "other.py changed since the fix was saved" in done.stderr
    assert (root / "calc.py").read_bytes() == SUM_TO  # the unchanged one is not written either
    assert (root / "other.py").read_text() == "X = 2\n"


@pytest.mark.parametrize("path", ["../outside.py", "/tmp/outside.py", "sub/../../outside.py"])
def test_a_patch_with_a_path_outside_the_project_is_refused(saved, tmp_path, path):
    root = shutil.copytree(saved["pristine"], tmp_path / "proj")
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    patch = json.loads(saved["patch"].read_text(encoding="utf-8"))
    patch["files"][0]["path"] = path
    patch["files"][0]["sha256"] = hashlib.sha256(b"SECRET = 1\n").hexdigest()
    (tmp_path / "evil.json").write_text(json.dumps(patch))
    done = selfdebug("apply", str(tmp_path / "evil.json"), cwd=root)
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert "paths must be relative and inside the project" in done.stderr
    assert (tmp_path / "outside.py").read_text() == "SECRET = 1\n"
    assert (root / "calc.py").read_bytes() == SUM_TO


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not a saved fix (not JSON"),
        ('{"files": []}', 'not a saved fix (no "selfdebug_patch" key)'),
        ('{"selfdebug_patch": 2, "files": []}', "this selfdebug reads version 1"),
        ('{"selfdebug_patch": 1, "files": [{"path": "calc.py"}]}', 'needs "sha256"'),
    ],
)
def test_a_malformed_or_unknown_patch_is_a_usage_error(tmp_path, text, message):
    root = _calc(tmp_path / "calc")
    (root / "bad.json").write_text(text)
    done = selfdebug("apply", "bad.json", cwd=root)
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert (root / "calc.py").read_bytes() == SUM_TO


# -- from a failing test --
ORDERS = """def unit_price(item):
    if item["qty"] >= 10:
        return item["price"] * 9 / 100
    return item["price"]


def order_total(items):
    total = 0
    for item in items:
        total += unit_price(item) * item["qty"]
    return total
"""
ORDER_TESTS = """from shop.orders import order_total


def test_small_order():
    assert order_total([{"price": 2, "qty": 3}]) == 6


def test_bulk_order():
    assert order_total([{"price": 1, "qty": 10}]) == 9
"""


def test_fix_json_from_a_failing_test(tmp_path):
    """The from-failure form: the ranking, each suspect's session, the function fixed."""
    root = tmp_path / "shop_project"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "orders.py").write_text(ORDERS)
    (root / "tests").mkdir()
    (root / "tests" / "test_orders.py").write_text(ORDER_TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    done, found = fix_json("--test", "tests/test_orders.py::test_bulk_order", "--mode", "search",
                           cwd=root)  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    assert (found["verdict"], found["form"]) == ("fixed", "failure")
    assert found["target"] == {"file": "shop/orders.py", "qualname": "unit_price"}
    assert found["failing_tests"] == ["tests/test_orders.py::test_bulk_order"]
    suspects = [s["target"] for s in found["suspects"]]
    assert suspects[:2] == ["shop/orders.py::unit_price", "shop/orders.py::order_total"]
    assert found["suspects"][0]["why"].startswith("1/1 failing tests run it")
    assert found["attempts"][-1]["target"] == "shop/orders.py::unit_price"
    assert found["attempts"][-1]["outcome"] == "fixed"
    assert found["diff"].startswith("--- a/shop/orders.py\n+++ b/shop/orders.py\n")
    assert "1. shop/orders.py::unit_price" in done.stderr  # the ranking, printed on stderr
    assert (root / "shop" / "orders.py").read_text() == ORDERS


def test_a_fix_of_two_files_is_saved_and_applied_whole(tmp_path):
    """Each bound is off by one in its own module (tests/test_from_failure.py): the fix from
    the failing test changes both files; the saved fix holds both, and apply writes both."""
    root = bounds_project(tmp_path / "bounds")
    pristine = shutil.copytree(root, tmp_path / "pristine")
    done, found = fix_json("--test", "tests/test_bounds.py::test_bounds", "--mode", "search",
                           "--save-patch", "fix.json", cwd=root)  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    assert sorted(found["files"]) == ["pkg/high.py", "pkg/low.py"]
    assert sorted(found["functions"]) == ["pkg/high.py::upper_bound", "pkg/low.py::lower_bound"]
    assert "-    return x - 2\n+    return x - 1\n" in found["diff"]
    assert "-    return x + 2\n+    return x + 1\n" in found["diff"]
    assert found["patch"] == "fix.json"
    patch = json.loads((root / "fix.json").read_text(encoding="utf-8"))
    assert sorted(f["path"] for f in patch["files"]) == ["pkg/high.py", "pkg/low.py"]
    done = selfdebug("apply", str(root / "fix.json"), cwd=pristine)
    assert done.returncode == ExitCode.OK, done.stderr
    assert (pristine / "pkg" / "low.py").read_text() == "def lower_bound(x):\n    return x - 1\n"
    assert (pristine / "pkg" / "high.py").read_text() == "def upper_bound(x):\n    return x + 1\n"
