"""Debug a small buggy project end to end: copy the bundled demo project (an off-by-one in
`total_price`) to a temporary folder and run `selfdebug fix` on it, by default with the default
local model (Qwen2.5-Coder-1.5B-Instruct, run by llama.cpp on this machine). Prints the diff and the
evidence. Exits 0 when a fix that passes the demo's tests was found, 1 when none was, 2 on a setup
or usage error (the message says what to do); any other code is `selfdebug fix`'s own (3 the
session failed, 130 interrupted).

The demo's mode is `ut`, so that the model is seen at work: `fix`'s default, `auto`, fixes this
bug with its edit search alone, in seconds, before any model call.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from selfdebug.commands.model_options import add_model_arguments, model_argv
from selfdebug.exit_codes import ExitCode
from selfdebug.server.engine.types import MODES

DEMO_FILE = "shop.py"
DEMO_FUNCTION = "total_price"
DEMO_FILES = ("pyproject.toml", "shop.py", "check_shop.py")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=MODES, default="ut")
    add_model_arguments(parser)
    parser.add_argument("--max-turns", type=int, default=3, metavar="N")
    parser.add_argument("--samples", type=int, default=1, metavar="N")
    parser.add_argument("--max-tokens", type=int, default=256, metavar="N")
    parser.add_argument("--transcript", default=None, metavar="PATH")
    parser.add_argument("--keep", action="store_true", help="keep the temporary project folder")
    parser.add_argument(
        "--require-sandbox", action="store_true", help="refuse to run tests without bubblewrap"
    )


def copy_demo_project(destination: Path) -> Path:
    """Copy the packaged demo project into `destination` and return it."""
    source = resources.files("selfdebug").joinpath("demo_project")
    destination.mkdir(parents=True, exist_ok=True)
    for name in DEMO_FILES:
        (destination / name).write_text(
            source.joinpath(name).read_text(encoding="utf-8"), encoding="utf-8"
        )
    return destination


def fix_arguments(args: argparse.Namespace, project: Path) -> argparse.Namespace:
    """The `fix` command's arguments for the demo (the same parser, so defaults stay in sync)."""
    from selfdebug.commands import fix

    parser = argparse.ArgumentParser(prog="selfdebug fix")
    fix.add_arguments(parser)
    argv = [
        f"{project / DEMO_FILE}::{DEMO_FUNCTION}",
        "--mode",
        args.mode,
        *model_argv(args),
        "--max-turns",
        str(args.max_turns),
        "--samples",
        str(args.samples),
        "--max-tokens",
        str(args.max_tokens),
    ]
    if args.transcript:
        argv += ["--transcript", args.transcript]
    if args.require_sandbox:
        argv.append("--require-sandbox")
    return parser.parse_args(argv)


def main(args: argparse.Namespace) -> int:
    from selfdebug.commands import fix

    work = Path(tempfile.mkdtemp(prefix="selfdebug-demo-"))
    try:
        project = copy_demo_project(work / "demo_project")
        print(f"selfdebug demo: copied the demo project to {project}")
        print(f"The function to debug ({DEMO_FILE}):\n")
        print((project / DEMO_FILE).read_text(encoding="utf-8"))
        print("Its tests (check_shop.py) expect total_price([3, 4, 5], 2) == 7, but it skips the")
        print("first item. Running `selfdebug fix` (tests found automatically):\n")
        try:
            fix_args = fix_arguments(args, project)
        except SystemExit:
            return ExitCode.USAGE
        code = fix.main(fix_args)
        print()
        if code == ExitCode.OK:
            print("Demo finished: a FIX WAS FOUND and it passes the tests (shown above as a diff;")
            print("the demo project in the temporary folder was not modified).")
            return ExitCode.OK
        if code == ExitCode.NO_FIX:
            print("Demo finished: the pipeline ran, but NO FIX WAS FOUND this time. Try more turns")
            print("(--max-turns 6), another mode (--mode probe), or another model:")
            print("  selfdebug demo --model qwen2.5-coder-1.5b   (`selfdebug models` lists them)")
            print(
                "  selfdebug demo --backend openai --model-name M "
                "--endpoint http://127.0.0.1:8000/v1"
            )
            return ExitCode.NO_FIX
        print(
            f"Demo could not run: `selfdebug fix` exited with {code} (see the message above; "
            "`selfdebug doctor` checks the setup).",
            file=sys.stderr,
        )
        return code  # its meaning kept: a failed session (3) or Ctrl-C (130) is no usage error
    finally:
        if args.keep:
            print(f"(kept {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
