"""Hostile model replies and leaked secrets against the engine (issue 16, items 3 and 4): every
case passed silently before the hardening."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfdebug.server.engine import redact
from selfdebug.server.engine.answers.candidate import check_candidate
from selfdebug.server.engine.model_calls.prompting import PromptLibrary
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import Transcript

SOURCE = (
    "import os\n\n\n"
    "def mean(values):\n    total = sum(values)\n    return total / (len(values) + 1)\n\n\n"
    "def log(path):\n    with open(path, 'a') as handle:\n        handle.write('x')\n"
)


def reply(code: str) -> str:
    return f"Bug: the divisor.\n```python\n{code}```\n"


def check(code: str, name: str = "mean"):
    return check_candidate(reply(code), locate(SOURCE, name), SOURCE)


FIX = "def mean(values):\n    total = sum(values)\n    return total / len(values)\n"
RETURN = "    return sum(values) / len(values)\n"
WARNED = {
    "__import__": "def mean(values):\n    __import__('os').system('id')\n" + RETURN,
    "computed getattr": "def mean(values):\n    getattr(os, 'sys' + 'tem')('id')\n" + RETURN,
    "exec": "def mean(values):\n    exec('import os')\n" + RETURN,
    "eval": "def mean(values):\n    return eval('sum(values) / len(values)')\n",
    "compile": "def mean(values):\n    code = compile('1', 'x', 'eval')\n" + RETURN,
    "open append": "def mean(values):\n    open('/tmp/x', 'a').write('1')\n" + RETURN,
    "open mode keyword": "def mean(values):\n    open('/tmp/x', mode='w')\n" + RETURN,
    "default argument": "def mean(values, _=__import__('os').getcwd()):\n" + RETURN,
    "decorator": "@print('imported')\ndef mean(values):\n" + RETURN,
    "subprocess": "def mean(values):\n    import subprocess\n    subprocess.run(['id'])\n" + RETURN,
}


@pytest.mark.parametrize("case", sorted(WARNED))
def test_dangerous_code_is_flagged(case: str) -> None:
    candidate = check(WARNED[case])
    assert candidate.ok, candidate.problem
    assert candidate.warnings, f"{case}: no warning"


def test_a_plain_fix_and_what_the_original_already_did_are_not_flagged() -> None:
    assert check(FIX).warnings == []
    same = "def log(path):\n    with open(path, 'a') as handle:\n        handle.write('y')\n"
    assert check(same, "log").warnings == []  # the original already appended to a file


@pytest.mark.parametrize(
    "char",
    ["\u3164", "\U000e0041", "\ufe0f", "\u034f", "\u200b", "\u202e", "\u115f", "\U000e0100"],
)
def test_invisible_characters_are_refused(char: str) -> None:
    code = (
        f"def mean(values):\n    total = sum(values)  # ok{char}\n    return total / len(values)\n"
    )
    candidate = check(code)
    assert not candidate.ok and "invisible" in candidate.problem


def test_hangul_filler_as_a_name_is_refused() -> None:
    code = "def mean(values):\n    \u3164 = sum(values)\n    return \u3164 / len(values)\n"
    candidate = check(code)
    assert not candidate.ok and "U+3164" in candidate.problem


def test_global_rebinding_of_other_names_is_refused() -> None:
    code = "def mean(values):\n    global os\n    os = None\n    return sum(values) / len(values)\n"
    candidate = check(code)
    assert not candidate.ok and "global os" in candidate.problem


KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
AWS = "AKIA" + "ABCDEFGHIJKLMNOP"


def test_secret_shapes_are_scrubbed() -> None:
    text = f"Error: {KEY} then\n{PEM}\naws {AWS} and password = hunter2hunter2 done"
    clean = redact.scrub(text)
    for secret in (KEY, "b3BlbnNzaC1rZXktdjEAAAAA", AWS, "hunter2hunter2"):
        assert secret not in clean
    assert clean.startswith("Error: [REDACTED]") and clean.endswith("done")
    assert redact.scrub("total = sum(values)") == "total = sum(values)"


def test_prompts_and_transcripts_carry_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = "plain-looking-value-1234567890"
    monkeypatch.setenv("MY_SERVICE_TOKEN", own)
    redact._environment_secrets.cache_clear()
    try:
        failure = f"AssertionError: config was {own} / {KEY}\n{PEM}"
        path = tmp_path / "t.jsonl"
        transcript = Transcript(path)
        transcript.write("tests", result={"message": failure}, lines=[failure])
        transcript.close()
        written = path.read_text()
        assert own not in written and KEY not in written and "b3BlbnNz" not in written
        assert json.loads(written.splitlines()[0])["event"] == "tests"
        prompts = PromptLibrary()
        for form in ("chat", "completion"):
            rendered = prompts.render("fix_ut", form, _variables(failure))  # type: ignore[arg-type]
            text = (rendered.prompt or "") + json.dumps(rendered.messages)
            assert own not in text and KEY not in text and "b3BlbnNz" not in text
            assert "[REDACTED]" in text
    finally:
        redact._environment_secrets.cache_clear()


def _variables(failure: str):
    from selfdebug.server.engine.model_calls.prompting import PromptVars

    return PromptVars(name="mean", qualname="mean", file="calc.py", code=FIX, failures=failure)
