"""Check this machine for selfdebug, each check with a fix hint: the project's interpreter and
pytest, whether it imports the project's own package, the protection tests run under
(bubblewrap; without it Landlock read+write, or none: `--json` says which as "protection"), the
model file, the llama.cpp binding (it loads the model and generates one token in the model
process, so a crashing build is caught without crashing), GPU offload, and a configured endpoint.
Exit 0 when every critical check passes, 1 when one fails, 2 for a usage error (a PROJECT folder
that does not exist).

`--quick` checks the model without loading it (its file is there and verified, the binding is
installed): what an editor's health check runs (`:checkhealth selfdebug` in Neovim). `--json`
prints one `Report` object, with the version of selfdebug that answered.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from selfdebug.commands.isolation_options import add_isolation_arguments
from selfdebug.commands.model_options import add_model_arguments, backend_settings_from
from selfdebug.exit_codes import ExitCode


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    hint: str = ""
    critical: bool = True

    @property
    def mark(self) -> str:
        if self.ok:
            return "ok"
        return "FAIL" if self.critical else "warn"


class CheckRow(TypedDict):
    name: str
    ok: bool
    detail: str
    hint: str
    critical: bool
    mark: str  # "ok", "FAIL" (a critical check failed) or "warn"


class Report(TypedDict):
    """What `doctor --json` prints."""

    ok: bool  # every critical check passes
    version: str  # of the selfdebug that ran the checks
    protection: str  # what guards a test run: `protection_in_force`
    checks: list[CheckRow]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", nargs="?", default=".", help="a project folder (default: .)")
    add_model_arguments(parser)
    add_isolation_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="do not load the model (its file and the binding are still checked); seconds",
    )


def check_interpreter(args: argparse.Namespace) -> list[Check]:
    """The interpreter that runs the project's tests: it has pytest ("python + pytest"), and it
    imports the project's own package ("project imports", sealed, in the shadow copy)."""
    from selfdebug.commands.isolation_options import runner_settings_from
    from selfdebug.server.runner import ProjectRunner
    from selfdebug.server.runner.environment import own_packages
    from selfdebug.server.runner.project import cli_boundary, find_project_root

    project = Path(args.project).resolve()
    root = find_project_root(project, cli_boundary(project))
    try:
        runner = ProjectRunner(root, runner_settings_from(args, test_timeout_s=10.0))
    except RuntimeError as error:  # --require-sandbox without a working bubblewrap
        return [Check("python + pytest", False, str(error))]
    with runner:
        info = runner.interpreter_info()
        problem = runner.environment_problem() if info.ok else ""
    note = f" ({runner.interpreter_note})" if runner.interpreter_note else ""
    if not info.ok:
        return [Check("python + pytest", False, info.problem + note, "see the message above")]
    timeout = (
        "" if info.has_timeout_plugin else " (no pytest-timeout: the watchdog still stops hangs)"
    )
    detail = f"{info.path}, pytest {info.pytest_version}{timeout}; project root {root}{note}"
    packages = own_packages(root)
    imported = (
        f"`{'`, `'.join(packages)}` import" if packages else "no package of its own to import"
    )
    imports = Check("project imports", True, f"{imported} with {info.path}")
    if problem:
        imports = Check("project imports", False, problem, "run the command above")
    return [Check("python + pytest", True, detail), imports]


def protection_in_force(args: argparse.Namespace) -> str:
    """What would guard a test run with these flags (`protection()`: "bubblewrap", "landlock
    read+write" or "none"), or "refused" when --require-sandbox finds no bubblewrap."""
    from selfdebug.server.runner.sandbox import SandboxUnavailable, choose_isolation, protection

    try:
        return protection(choose_isolation(args.isolation, require_sandbox=args.require_sandbox))
    except SandboxUnavailable:
        return "refused"


def check_sandbox(args: argparse.Namespace) -> Check:
    from selfdebug.server.runner.sandbox import (
        bubblewrap_install_hint,
        bwrap_path,
        isolation_warning,
    )

    in_force = protection_in_force(args)
    if in_force == "bubblewrap":
        detail = f"protection: bubblewrap ({bwrap_path()}): tests run isolated"
        return Check("sandbox", True, detail)
    if in_force == "refused":
        detail = "protection: none allowed: --require-sandbox and bubblewrap cannot run here"
        return Check("sandbox", False, detail, bubblewrap_install_hint())
    hint = "drop `--isolation rlimits`" if bwrap_path() else bubblewrap_install_hint()
    return Check(
        "sandbox",
        False,
        f"protection: {in_force}; {isolation_warning('rlimits')}",
        hint,
        critical=args.require_sandbox,
    )


def check_model_and_binding(args: argparse.Namespace) -> list[Check]:
    from selfdebug.server.backends.base import BackendConfigError, BackendError, CompletionRequest
    from selfdebug.server.backends.binding import reinstall_command, risky_build
    from selfdebug.server.backends.llama import LlamaBackend

    checks: list[Check] = []
    try:
        backend = LlamaBackend(args.model, notice=None, progress=None, keep_alive_s=0)
        path = backend.model_file()
    except BackendConfigError as error:
        return [Check("model", False, str(error), "`selfdebug models` lists the known models")]
    known = backend.known_model
    label = f"{known.name}, sha256 verified" if known else "a GGUF file (no known checksum)"
    size = path.stat().st_size // 2**20
    checks.append(Check("model", True, f"{path} ({label}, {size} MiB)"))
    try:
        info = backend.info()
        reply = backend.complete(CompletionRequest(prompt="def f():", max_tokens=1, deadline_s=300))
    except BackendError as error:
        checks.append(Check("llama.cpp binding", False, str(error), reinstall_command()))
        return checks
    finally:
        backend.worker().close()
    risk = risky_build(str(info.get("system_info", "")))
    detail = (
        f"loads and generates in the model process ({reply.completion_tokens} token, "
        f"{reply.seconds:.1f} s); threads {info.get('n_threads')}/{info.get('n_threads_batch')}"
    )
    checks.append(Check("llama.cpp binding", not risk, risk or detail, reinstall_command()))
    gpu = bool(info.get("gpu_offload_supported"))
    checks.append(
        Check(
            "GPU offload",
            gpu,
            "supported: all layers go to the GPU" if gpu else "this build runs on the CPU only",
            "for a GPU, rebuild llama-cpp-python with CUDA or Metal (README: Models)",
            critical=False,
        )
    )
    return checks


def check_model_file(spec: str) -> Check:
    """The model the server would run, without loading or assembling it (`--quick`)."""
    from selfdebug.server.backends.assemble import install_hint, installed, verified
    from selfdebug.server.backends.base import BackendConfigError
    from selfdebug.server.backends.models import cache_path, resolve_model_spec

    hint = "`selfdebug models` lists the known models"
    try:
        known, path = resolve_model_spec(spec)
    except BackendConfigError as error:
        return Check("model", False, str(error), hint)
    if known is None:
        assert path is not None
        if not path.is_file():
            return Check("model", False, f"model file not found: {path}", hint)
        size = path.stat().st_size // 2**20
        return Check("model", True, f"{path} (a GGUF file, {size} MiB; not loaded: --quick)")
    target = cache_path(known)
    size = known.size // 2**20
    if verified(known, target):
        return Check("model", True, f"{known.name}: {target} (sha256 verified, {size} MiB)")
    if installed(known):
        detail = f"{known.name}: installed, assembled on first use ({size} MiB)"
        return Check("model", True, detail, f"or now: `selfdebug models --prepare {known.name}`")
    return Check("model", False, f"{known.name} is not installed", install_hint(known))


def check_endpoint(url: str) -> Check:
    import urllib.error
    import urllib.request

    target = url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(target, timeout=5) as response:
            return Check("endpoint", True, f"{target} answers (HTTP {response.status})")
    except urllib.error.HTTPError as error:  # it answered: 401 means a key is needed, not down
        return Check("endpoint", True, f"{target} answers (HTTP {error.code})")
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return Check("endpoint", False, f"{target} is unreachable: {reason}", "is the server up?")


def run_checks(args: argparse.Namespace) -> list[Check]:
    settings = backend_settings_from(args)
    checks = [*check_interpreter(args), check_sandbox(args)]
    if settings.backend == "llama":
        import importlib.util

        from selfdebug.server.backends.llama_loader import missing_binding

        if args.quick:
            checks.append(check_model_file(args.model))
        if importlib.util.find_spec("llama_cpp") is None:
            checks.append(Check("llama.cpp binding", False, missing_binding()))
        elif args.quick:
            detail = "installed (not loaded: --quick; `selfdebug doctor` loads it)"
            checks.append(Check("llama.cpp binding", True, detail))
        else:
            checks += check_model_and_binding(args)
    if settings.endpoint_url:
        checks.append(check_endpoint(settings.endpoint_url))
    elif settings.backend == "openai":
        checks.append(Check("endpoint", False, "--backend openai needs --endpoint URL"))
    return checks


def report(checks: list[Check], protection: str) -> Report:
    from selfdebug import __version__

    rows = [
        CheckRow(
            name=c.name, ok=c.ok, detail=c.detail, hint=c.hint, critical=c.critical, mark=c.mark
        )
        for c in checks
    ]
    passed = all(c.ok for c in checks if c.critical)
    return Report(ok=passed, version=__version__, protection=protection, checks=rows)


def main(args: argparse.Namespace) -> int:
    if not Path(args.project).is_dir():  # else its checks would pass for a folder above it
        problem = "does not exist" if not Path(args.project).exists() else "is not a folder"
        print(f"selfdebug doctor: the project {args.project} {problem}", file=sys.stderr)
        return ExitCode.USAGE
    checks = run_checks(args)
    passed = all(check.ok for check in checks if check.critical)
    if args.json:
        print(json.dumps(report(checks, protection_in_force(args))))
    else:
        for check in checks:
            print(f"[{check.mark:>4}] {check.name}: {check.detail}")
            if not check.ok and check.hint:
                print(f"       fix: {check.hint}")
        print("all critical checks pass" if passed else "some critical checks FAILED")
    return ExitCode.OK if passed else ExitCode.NO_FIX
