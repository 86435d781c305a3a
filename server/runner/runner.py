"""Run a project's tests in its shadow copy: exact, bounded, sealed, cancellable.

`ProjectRunner.run(nodeids)` syncs the shadow copy, applies per-run overrides and runs pytest with
our plugin through the supervisor (supervision.py: launcher limits, sandbox, watchdog). A test that
hangs is killed with its whole process tree and reported as `timeout` with its last output; the
tests that had not run yet get a fresh pytest process (the restart policy, here), so one bad test
does not hide the others. The plugin's events are typed in events.py and turned into results,
across processes, in assembly.py.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.assembly import ResultAssembler, RunTally, line_maps_of
from selfdebug.server.runner.environment import (
    IMPORT_PROBE,
    environment_hint,
    import_probe_problem,
    own_packages,
    plugin_hint,
)
from selfdebug.server.runner.events import PLUGIN_MODULE
from selfdebug.server.runner.project import (
    InterpreterInfo,
    inspect_interpreter,
    resolve_interpreter,
)
from selfdebug.server.runner.results import (
    CollectedItem,
    CollectError,
    CollectResult,
    RunResult,
    nodeid_file,
)
from selfdebug.server.runner.run_memo import RunMemo, program_key
from selfdebug.server.runner.sandbox import (
    choose_isolation,
    isolation_warning,
    protect_own_environ,
)
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import ShadowCopy, ShadowTooLarge
from selfdebug.server.runner.supervision import AUTOLOAD_ENV, ProcessRun, Supervisor
from selfdebug.server.runner.workdirs import make_run_dir

__all__ = [
    "CollectError",
    "CollectResult",
    "CollectedItem",
    "PluginRun",
    "ProjectRunner",
    "pytest_argv",
]

RETRIED_KILLS = ("timeout", "output", "processes")  # one test's fault: the others get a new run


def _json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file (a torn or foreign line is skipped)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            lines.append(value)
    return lines


def pytest_argv(
    interpreter: Path,
    settings: RunnerSettings,
    *,
    rootdir: Path,
    env: Mapping[str, str],
    timeout_plugin: bool,
    args: Sequence[str],
) -> list[str]:
    """pytest with our plugin, for the environment `env` it will run in (see run_folder)."""
    options = ["-p", "no:cacheprovider", "-p", PLUGIN_MODULE, "--capture=tee-sys", "-q"]
    options.append("--continue-on-collection-errors")  # one broken file must not hide all
    options += ["--rootdir", str(rootdir), "-o", "console_output_style=classic"]
    if timeout_plugin:
        # Without plugin autoloading pytest-timeout must be named; with it, naming it again fails.
        if AUTOLOAD_ENV in env:
            options += ["-p", "pytest_timeout"]
        options += ["--timeout", f"{settings.test_timeout_s:g}"]
        options += ["--timeout-method=signal"]
    return [str(interpreter), "-m", "pytest", *options, *args]


@dataclass
class PluginRun:
    """What one `run_plugin` process reported: the plugin's own JSON lines, and why the process
    was killed ("" when it was not)."""

    events: list[dict[str, Any]]
    kill_reason: str
    killed_nodeid: str | None
    output_tail: str
    cancelled: bool


class ProjectRunner:
    """Runs tests of one project. Thread-safe: runs are serialized (one shadow copy)."""

    def __init__(self, project_root: Path | str, settings: RunnerSettings | None = None) -> None:
        self.project_root = Path(project_root).resolve()
        self.settings = settings or RunnerSettings()
        choice = resolve_interpreter(
            self.project_root, self.settings.interpreter, trusted=self.settings.trust_project
        )
        self.interpreter = choice.path
        self.interpreter_choice = choice
        self.interpreter_note = choice.note  # the project's own python, passed over untrusted
        self.isolation = choose_isolation(
            self.settings.isolation, require_sandbox=self.settings.require_sandbox
        )
        # Said to the user by every front end ("" under bubblewrap).
        self.isolation_warning = isolation_warning(self.isolation)
        if self.isolation != "bwrap":
            protect_own_environ()  # our /proc/<pid>/environ holds API keys; tests are not sealed
        self._base = make_run_dir()  # in our runs folder, marked as ours (workdirs.py)
        self.shadow = ShadowCopy(
            self.project_root, self._base / "shadow", cap_bytes=self.settings.shadow_cap_bytes
        )
        # Starts every process of this runner, sealed and bounded, in the shadow copy.
        self.supervisor = Supervisor(
            settings=self.settings,
            isolation=self.isolation,
            interpreter=self.interpreter,
            project_root=self.project_root,
            shadow_root=self.shadow.root,
            work_dir=self._base,
            own_environment=choice.ours,
        )
        self._lock = threading.Lock()
        self._pinned: dict[Path, str] = {}  # see `pinned`
        self._memo = RunMemo()  # see `run(reuse=True)`
        # Temp files go away with the runner even when close() is forgotten.
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._base, ignore_errors=True)

    # -- public API -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def pinned(self, files: Mapping[Path, str]) -> Iterator[None]:
        """Every run in the block sees `files` (user path -> text) in place of the user's: an
        edit already made in another function, under which the next session searches (a fix
        of two functions). A run's own overrides win for the same file."""
        before = self._pinned
        self._pinned = {**before, **{Path(path).resolve(): text for path, text in files.items()}}
        try:
            yield
        finally:
            self._pinned = before

    def _with_pinned(self, overrides: Mapping[Path, str] | None) -> dict[Path, str]:
        mine = {Path(path).resolve(): text for path, text in (overrides or {}).items()}
        return {**self._pinned, **mine}

    def interpreter_info(self) -> InterpreterInfo:
        """Whether the chosen interpreter runs and has pytest (probed inside the sandbox); its
        folders become readable for the tests (the fallback's Landlock rules)."""
        info = inspect_interpreter(self.interpreter, self.supervisor.check)
        self.supervisor.interpreter_paths = info.search_paths
        return info

    def environment_problem(self) -> str:
        """One line with the fix when the chosen interpreter cannot run this project's tests (no
        pytest, or the project's own package does not import: not installed, or a generated
        `_version.py` missing); "" when it can. Imports the package once, sealed, in the copy."""
        info = self.interpreter_info()
        if not info.ok:
            return info.problem
        packages = own_packages(self.project_root)
        if not packages:
            return ""
        try:
            with self._lock:
                self.shadow.sync()
                completed = self.supervisor.check_in_copy(
                    [str(self.interpreter), "-c", IMPORT_PROBE, *packages]
                )
        except ShadowTooLarge as too_large:
            return str(too_large)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"cannot check the project's imports with {self.interpreter}: {error}"
        return import_probe_problem(
            completed.stdout + completed.stderr,
            interpreter=self.interpreter,
            root=self.project_root,
            ours=self.interpreter_choice.ours,
        )

    def environment_hint(self, errors: Sequence[CollectError]) -> str:
        """The one-line fix when a collection error comes from the environment, else ""."""
        return environment_hint(
            errors,
            root=self.project_root,
            interpreter=self.interpreter,
            ours=self.interpreter_choice.ours,
        )

    def run(
        self,
        nodeids: Sequence[str],
        *,
        overrides: Mapping[Path, str] | None = None,
        probes: bool = False,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
        reuse: bool = False,
    ) -> RunResult:
        """Run `nodeids` (pytest node ids relative to the project root) and report each test.

        `reuse`: an earlier run of this runner that ran these tests on the same program answers
        instead (run_memo.py): for a caller that wants the answer, not an independent rerun."""
        started = time.monotonic()
        deadline = started + timeout_s if timeout_s else None
        notes = [self.interpreter_note] if self.interpreter_note else []
        try:
            with self._lock:
                self.shadow.sync()
        except ShadowTooLarge as too_large:
            return RunResult([], self.isolation, 0.0, error=str(too_large), notes=notes)
        info = self.interpreter_info()
        if not info.ok:
            return RunResult([], self.isolation, 0.0, error=info.problem, notes=notes)
        if not nodeids:
            return RunResult([], self.isolation, 0.0, error="no tests to run", notes=notes)
        if not info.has_timeout_plugin:
            notes.append(
                f"pytest-timeout is not installed in {self.interpreter}: hung tests are stopped"
                " by the watchdog (hard kill) instead"
            )
        with self._lock:
            self.shadow.sync()
            files = self._with_pinned(overrides)
            key = program_key(self.shadow.tree_key, files, probes)
            if reuse and (known := self._memo.answer(key, nodeids)) is not None:
                return known
            with self.shadow.overridden(files) as written:
                result = self._run_with_restarts(
                    list(nodeids),
                    ResultAssembler(self.shadow, self.settings, line_maps_of(written)),
                    probes,
                    cancel,
                    deadline,
                    info.has_timeout_plugin,
                )
        result.duration = time.monotonic() - started
        if self.interpreter_choice.ours and not result.all_passed:
            hint = plugin_hint(result, interpreter=self.interpreter)
            if hint and hint not in result.notes:
                result.notes.insert(0, hint)
        result.notes.extend(notes)
        with self._lock:
            self._memo.keep(key, nodeids, result)
        return result

    def collect(
        self,
        paths: Sequence[str] = (),
        *,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
        overrides: Mapping[Path, str] | None = None,
    ) -> CollectResult:
        """pytest's own collection (`--collect-only`) of `paths` (default: the whole project)."""
        try:
            with self._lock:
                self.shadow.sync()
        except ShadowTooLarge as too_large:
            return CollectResult([], [], self.isolation, error=str(too_large))
        info = self.interpreter_info()
        if not info.ok:
            return CollectResult([], [], self.isolation, error=info.problem)
        deadline = time.monotonic() + timeout_s if timeout_s else None
        with self._lock:
            self.shadow.sync()
            with self.shadow.overridden(self._with_pinned(overrides)):
                run = self._pytest(
                    ["--collect-only", *paths], False, cancel, deadline, timeout_plugin=False
                )
        assembler = ResultAssembler(self.shadow, self.settings)
        errors = assembler.collect_errors(run.events)
        error = ""
        if run.kill_reason:
            error = assembler.kill_message(run.kill_reason) + " (during collection)"
        elif not run.events.has_collected() and not errors:
            error = assembler.output_tail(run) or f"pytest exited with code {run.exit_code}"
        items = assembler.collected_items(run.events)
        hint = self.environment_hint(errors)
        if hint and not items:  # nothing collects: the environment is the problem
            error = "\n".join(filter(None, [hint, error]))
        return CollectResult(
            items, errors, self.isolation, error=error, notes=[hint] if hint else []
        )

    def run_plugin(
        self,
        plugin: Path,
        args: Sequence[str],
        *,
        job: str,
        overrides: Mapping[Path, str] | None = None,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
    ) -> PluginRun:
        """One pytest process with an extra plugin of ours (`plugin`, stdlib-only, given `job`
        as `--selfdebug-job`), sealed, limited and watched like `run`; returns every JSON line of
        the process's event stream, the plugin's own events included (the watchdog follows the
        `start`/`result` events it writes there). For helpers that judge many things in one
        process: the edit search (server/runner/search_runner.py)."""
        deadline = time.monotonic() + timeout_s if timeout_s else None
        self.interpreter_info()  # checked once per interpreter; its folders become readable
        with self._lock:
            self.shadow.sync()
            shutil.copyfile(plugin, self.supervisor.tools / plugin.name)
            with (
                self.shadow.overridden(self._with_pinned(overrides)),
                self.supervisor.run_folder() as folder,
            ):
                job_file = folder.path / "job.json"
                job_file.write_text(job, encoding="utf-8")
                options = ["-p", plugin.stem, f"--selfdebug-job={job_file}", "--capture=sys"]
                argv = pytest_argv(
                    self.interpreter,
                    self.settings,
                    rootdir=self.shadow.root,
                    env=folder.env,
                    timeout_plugin=False,
                    args=[*options, *args],
                )
                run = self.supervisor.run(folder, argv, cancel=cancel, deadline=deadline)
                lines = _json_lines(folder.stream)
        return PluginRun(
            lines,
            run.kill_reason,
            run.killed_nodeid,
            run.output_tail(),
            bool(cancel and cancel.cancelled),
        )

    def forget_runs(self) -> None:
        """Drop the runs kept for `run(reuse=True)`: a runner kept warm for the next job (the
        editor's pool) must not answer it with this job's runs, since what the tests read
        beside the project (an installed package, the clock) may have changed meanwhile."""
        with self._lock:
            self._memo = RunMemo()

    def close(self) -> None:
        """Remove the shadow copy and temp files (waits for a run in progress)."""
        with self._lock:
            self._cleanup()

    def __enter__(self) -> ProjectRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one run, possibly several pytest processes ----------------------------------------------
    def _run_with_restarts(
        self,
        nodeids: list[str],
        assembler: ResultAssembler,
        probes: bool,
        cancel: CancelToken | None,
        deadline: float | None,
        timeout_plugin: bool,
    ) -> RunResult:
        """The restart policy: pytest again without the files that failed to import (pytest
        refuses to run anything when a named test's file fails), and again for the tests left
        after one was killed for its own fault (timeout, output, processes)."""
        tally = RunTally(assembler)
        args = nodeids
        for _attempt in range(self.settings.max_restarts + 1):
            run = self._pytest(args, probes, cancel, deadline, timeout_plugin=timeout_plugin)
            new_errors = tally.add(run)
            if not run.events.collected_ids() and new_errors and not run.kill_reason:
                broken = {e.nodeid for e in new_errors}
                narrowed = [a for a in args if nodeid_file(a) not in broken]
                if narrowed and narrowed != args:
                    args = narrowed
                    continue
            tally.note_silent_exit(run, new_errors)
            remaining = tally.remaining()
            if not (run.kill_reason in RETRIED_KILLS and remaining and run.killed_nodeid):
                break
            args = remaining
        cancelled = bool(cancel and cancel.cancelled)
        result = tally.result(nodeids, isolation=self.isolation, probes=probes, cancelled=cancelled)
        hint = self.environment_hint(tally.collect_errors)
        if hint:  # first: every front end shows the error's first line
            result.error = "\n".join(filter(None, [hint, result.error]))
            result.notes.append(hint)
        return result

    def _pytest(
        self,
        args: Sequence[str],
        probes: bool,
        cancel: CancelToken | None,
        deadline: float | None,
        *,
        timeout_plugin: bool,
    ) -> ProcessRun:
        """One pytest process over `args` in the shadow copy, supervised."""
        with self.supervisor.run_folder(probes=probes) as folder:
            argv = pytest_argv(
                self.interpreter,
                self.settings,
                rootdir=self.shadow.root,
                env=folder.env,
                timeout_plugin=timeout_plugin,
                args=args,
            )
            return self.supervisor.run(folder, argv, cancel=cancel, deadline=deadline)
