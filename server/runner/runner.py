"""Run a project's tests in its shadow copy: exact, bounded, sealed, cancellable.

`ProjectRunner.run(nodeids)` syncs the shadow copy, applies per-run overrides, starts pytest
through the launcher (limits) inside the sandbox (bubblewrap or rlimits), streams results from
our plugin and watches the clock, the output volume and the process count. A test that hangs is
killed with its whole process tree and reported as `timeout` with its last output; the tests that
had not run yet get a fresh pytest process, so one bad test does not hide the others.
"""

from __future__ import annotations

import itertools
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.project import (
    InterpreterInfo,
    inspect_interpreter,
    resolve_interpreter,
)
from selfdebug.server.runner.results import (
    Frame,
    ProbeRecord,
    RunResult,
    TestResult,
    nodeid_file,
)
from selfdebug.server.runner.sandbox import (
    ProcessTree,
    build_env,
    bwrap_command,
    bwrap_path,
    choose_isolation,
    isolation_warning,
    keep_paths,
    protect_own_environ,
)
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import ShadowCopy, ShadowTooLarge

PLUGIN_MODULE = "_selfdebug_pytest_plugin_v1"
LAUNCHER_FILE = "_selfdebug_launcher_v1.py"
START_MARKER = b"\x1e[selfdebug:start] "
MARKER_ENV = "SELFDEBUG_RUN_MARKER"
POLL_S = 0.05
PROCESS_CHECK_S = 0.25

KILL_MESSAGES = {
    "timeout": "killed by the watchdog: the test ran past its {timeout:g} s timeout",
    "output": "killed: the test process wrote more than {cap} bytes of output",
    "processes": "killed: the test started more than {procs} processes",
    "cancelled": "cancelled",
    "run-timeout": "killed: the whole run exceeded its time limit",
    "startup": "killed: pytest did not start a test within {startup:g} s (hang at import?)",
}


@dataclass
class CollectedItem:
    nodeid: str
    path: Path  # the user's file
    line: int  # 1-based line of the test definition
    domain: str  # "test_func[param]" or "TestClass.test_method"


@dataclass
class CollectError:
    nodeid: str
    path: str  # the user's file
    line: int  # 1-based; 0 when unknown
    exc_type: str
    message: str
    longrepr: str = ""

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.exc_type}: {self.message}".strip()


@dataclass
class CollectResult:
    items: list[CollectedItem]
    errors: list[CollectError]
    isolation: str
    error: str = ""  # run-level problem (interpreter without pytest, killed, usage error)


@dataclass
class _Session:
    """What one pytest process left behind."""

    events: list[dict[str, Any]] = field(default_factory=list)
    output: bytes = b""
    exit_code: int | None = None
    kill_reason: str = ""
    killed_nodeid: str | None = None

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == kind]


class _JsonlTail:
    """Reads the complete lines appended to a JSONL file since the last call."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._offset = 0
        self._partial = b""

    def read_new(self) -> list[dict[str, Any]]:
        try:
            with open(self._path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except OSError:
            return []
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        events = []
        for line in lines:
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        return events


def _truncate(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    half = cap // 2
    return f"{text[:half]}\n...[{len(text) - 2 * half} characters truncated]...\n{text[-half:]}"


def _line_maps(written: Mapping[Path, Path]) -> dict[Path, list[int]]:
    """For each file written for this run (shadow path): instrumented line -> original line, as
    `selfdebug.instrument.line_map` gives it. Read once, before any test can change the file."""
    from selfdebug.instrument import line_map

    maps = {}
    for shadow_path in written:
        try:
            mapping = line_map(shadow_path.read_bytes())
        except OSError:
            continue
        if mapping:
            maps[shadow_path] = mapping
    return maps


class ProjectRunner:
    """Runs tests of one project. Thread-safe: runs are serialized (one shadow copy)."""

    def __init__(self, project_root: Path | str, settings: RunnerSettings | None = None) -> None:
        self.project_root = Path(project_root).resolve()
        self.settings = settings or RunnerSettings()
        choice = resolve_interpreter(
            self.project_root, self.settings.interpreter, trusted=self.settings.trust_project
        )
        self.interpreter = choice.path
        self.interpreter_note = choice.note  # the project's own python, passed over untrusted
        self.isolation = choose_isolation(
            self.settings.isolation, require_sandbox=self.settings.require_sandbox
        )
        # Said to the user by every front end ("" under bubblewrap).
        self.isolation_warning = isolation_warning(self.isolation)
        if self.isolation != "bwrap":
            protect_own_environ()  # our /proc/<pid>/environ holds API keys; tests are not sealed
        self._base = Path(tempfile.mkdtemp(prefix="selfdebug-run-"))
        self._tools = self._base / "tools"
        self._tools.mkdir()
        here = Path(__file__).parent
        shutil.copyfile(here / f"{PLUGIN_MODULE}.py", self._tools / f"{PLUGIN_MODULE}.py")
        shutil.copyfile(here / LAUNCHER_FILE, self._tools / LAUNCHER_FILE)
        self.shadow = ShadowCopy(
            self.project_root, self._base / "shadow", cap_bytes=self.settings.shadow_cap_bytes
        )
        self._lock = threading.Lock()
        self._counter = itertools.count()
        # Temp files go away with the runner even when close() is forgotten.
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._base, ignore_errors=True)

    # -- public API -----------------------------------------------------------------------------
    def interpreter_info(self) -> InterpreterInfo:
        """Whether the chosen interpreter runs and has pytest (probed inside the sandbox)."""
        return inspect_interpreter(self.interpreter, self._probe)

    def run(
        self,
        nodeids: Sequence[str],
        *,
        overrides: Mapping[Path, str] | None = None,
        probes: bool = False,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
    ) -> RunResult:
        """Run `nodeids` (pytest node ids relative to the project root) and report each test."""
        started = time.monotonic()
        deadline = started + timeout_s if timeout_s else None
        notes = [self.interpreter_note] if self.interpreter_note else []
        try:
            with self._lock:
                self.shadow.sync()
        except ShadowTooLarge as too_large:
            return RunResult([], self.isolation, 0.0, error=str(too_large), notes=notes)
        info = inspect_interpreter(self.interpreter, self._probe)
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
            with self.shadow.overridden(overrides) as written:
                result = self._run_with_restarts(
                    list(nodeids),
                    _line_maps(written),
                    probes,
                    cancel,
                    deadline,
                    info.has_timeout_plugin,
                )
        result.duration = time.monotonic() - started
        result.notes.extend(notes)
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
        info = inspect_interpreter(self.interpreter, self._probe)
        if not info.ok:
            return CollectResult([], [], self.isolation, error=info.problem)
        deadline = time.monotonic() + timeout_s if timeout_s else None
        with self._lock:
            self.shadow.sync()
            with self.shadow.overridden(overrides):
                session = self._session(
                    ["--collect-only", *paths], False, cancel, deadline, timeout_plugin=False
                )
        collected = session.of("collected")
        items = [
            CollectedItem(
                nodeid=i["nodeid"],
                path=self.shadow.to_user(i["path"]) or Path(i["path"]),
                line=int(i["line"]),
                domain=i["domain"],
            )
            for i in (collected[-1]["items"] if collected else [])
        ]
        errors = self._collect_errors(session)
        error = ""
        if session.kill_reason:
            error = self._kill_message(session.kill_reason) + " (during collection)"
        elif not collected and not errors:
            error = self._output_tail(session) or f"pytest exited with code {session.exit_code}"
        return CollectResult(items, errors, self.isolation, error=error)

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
        line_maps: Mapping[Path, list[int]],
        probes: bool,
        cancel: CancelToken | None,
        deadline: float | None,
        timeout_plugin: bool,
    ) -> RunResult:
        results: dict[str, TestResult] = {}
        order: list[str] = []
        errors: list[str] = []
        collect_errors: list[CollectError] = []
        probe_records: list[dict[str, Any]] = []
        args = nodeids
        exit_code: int | None = None
        kill_reasons: list[str] = []
        for _attempt in range(self.settings.max_restarts + 1):
            session = self._session(
                args,
                probes,
                cancel,
                deadline,
                timeout_plugin=timeout_plugin,
                probe_out=probe_records,
            )
            exit_code = session.exit_code
            collected = session.of("collected")
            collected_ids = [i["nodeid"] for i in collected[-1]["items"]] if collected else []
            if collected_ids and not order:
                order = collected_ids
            for event in session.of("result"):
                results[event["nodeid"]] = self._test_result(event, line_maps)
            if session.kill_reason:
                kill_reasons.append(session.kill_reason)
                killed = session.killed_nodeid
                if killed and killed not in results:
                    results[killed] = self._killed_result(session, killed)
                    if killed not in order:
                        order.append(killed)
            new_errors = self._collect_errors(session)
            collect_errors += new_errors
            errors.extend(e.describe() for e in new_errors)
            if not collected_ids and new_errors and not session.kill_reason:
                # pytest refuses to run anything when a named test's file fails to import:
                # run the others on their own.
                broken = {e.nodeid for e in new_errors}
                narrowed = [a for a in args if nodeid_file(a) not in broken]
                if narrowed and narrowed != args:
                    args = narrowed
                    continue
            if not (session.kill_reason or collected_ids or new_errors or session.of("result")):
                tail = self._output_tail(session)
                errors.append(tail or f"pytest exited with code {exit_code} before any test")
            remaining = [n for n in order if n not in results]
            retry = session.kill_reason in ("timeout", "output", "processes")
            if not (retry and remaining and session.killed_nodeid):
                break
            args = remaining
        cancelled = bool(cancel and cancel.cancelled)
        not_run_reason = self._kill_message(kill_reasons[-1]) if kill_reasons else "not run"
        tests = []
        for nodeid in order + [n for n in results if n not in order]:
            if nodeid in results:
                tests.append(results[nodeid])
            else:
                tests.append(
                    TestResult(
                        nodeid, "error", exc_type="NotRun", message=f"not run: {not_run_reason}"
                    )
                )
        tests += self._uncollected(nodeids, order, collect_errors)
        if probes:
            self._attach_probes(tests, probe_records)
        if not tests and kill_reasons:
            errors.append(self._kill_message(kill_reasons[-1]) + " before any test ran")
        return RunResult(
            tests=tests,
            isolation=self.isolation,
            duration=0.0,
            timed_out=any(r in ("timeout", "run-timeout", "startup") for r in kill_reasons),
            cancelled=cancelled,
            error=self._map_text("\n".join(dict.fromkeys(errors))),
            exit_code=exit_code,
        )

    def _uncollected(
        self, requested: list[str], collected: list[str], collect_errors: list[CollectError]
    ) -> list[TestResult]:
        """Requested tests that never got collected (their file failed to import, say, after a
        candidate fix removed a name): each is an error carrying the reason, not silently gone."""
        if not collected and not collect_errors:
            return []
        missing = []
        for nodeid in requested:
            if "::" not in nodeid or any(
                c == nodeid or c.startswith((nodeid + "[", nodeid + "::")) for c in collected
            ):
                continue
            file = nodeid_file(nodeid)
            error = next((e for e in collect_errors if e.nodeid == file), None)
            message = error.describe() if error else "not collected"
            exc_type = error.exc_type if error else "NotCollected"
            missing.append(
                TestResult(nodeid, "error", exc_type=exc_type, message=message,
                           longrepr=error.longrepr if error else "")
            )  # fmt: skip
        return missing

    # -- one pytest process ----------------------------------------------------------------------
    def _session(
        self,
        args: Sequence[str],
        probes: bool,
        cancel: CancelToken | None,
        deadline: float | None,
        *,
        timeout_plugin: bool,
        probe_out: list[dict[str, Any]] | None = None,
    ) -> _Session:
        run_dir = self._base / f"run-{next(self._counter)}"
        home, tmp = run_dir / "home", run_dir / "tmp"
        home.mkdir(parents=True)
        tmp.mkdir()
        stream = run_dir / "results.jsonl"
        stream.touch()
        python_path = [self._tools]
        ours = {
            "SELFDEBUG_RESULT_STREAM": str(stream),
            MARKER_ENV: uuid.uuid4().hex,
            "SELFDEBUG_USER_ROOT": str(self.project_root),
            "SELFDEBUG_SHADOW_ROOT": str(self.shadow.root),
        }
        probe_log = run_dir / "probes.jsonl"
        if probes:
            from selfdebug.instrument import runtime_dir

            python_path.append(runtime_dir())
            ours["SELFDEBUG_PROBE_LOG"] = str(probe_log)
        if (self.shadow.root / "src").is_dir():
            python_path.append(self.shadow.root / "src")
        env = build_env(
            home=home,
            tmp=tmp,
            interpreter=self.interpreter,
            python_path=python_path,
            ours={**self.settings.extra_env, **ours},
            passthrough=self.settings.env_passthrough,
        )
        # Without plugin autoloading pytest-timeout must be named; with it, naming it again fails.
        explicit = "PYTEST_DISABLE_PLUGIN_AUTOLOAD" in env
        options = self._pytest_options(timeout_plugin, explicit_timeout_plugin=explicit)
        pytest_argv = [str(self.interpreter), "-m", "pytest", *options]
        pytest_argv += list(args)
        readonly = [Path(p) for p in python_path]
        command = self._sealed(pytest_argv, run_dir, readonly)
        try:
            process = subprocess.Popen(
                command,
                cwd=self.shadow.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            shutil.rmtree(run_dir, ignore_errors=True)
            return _Session(output=f"cannot start the test process: {error}".encode())
        tree = ProcessTree(process, (MARKER_ENV, ours[MARKER_ENV]), self.isolation)
        unregister = cancel.on_cancel(tree.kill) if cancel else (lambda: None)
        try:
            session = self._watch(tree, stream, cancel, deadline)
        finally:
            unregister()
            if tree.process.poll() is None:
                tree.kill()
            tree.process.wait()
            tree.reap_leftovers()
            if probes and probe_out is not None:
                probe_out.extend(_JsonlTail(probe_log).read_new())
            shutil.rmtree(run_dir, ignore_errors=True)
        return session

    def _sealed(self, argv: list[str], run_dir: Path, readonly: Sequence[Path]) -> list[str]:
        """`argv` behind our launcher (limits; Landlock in the fallback) and, when available,
        bubblewrap. The launcher runs in OUR interpreter, so the restrictions are in place before
        the project's interpreter (the repository's own program) starts."""
        config: dict[str, Any] = {"limits": self._limits(), "argv": argv}
        if self.isolation != "bwrap":
            config["landlock"] = [str(self.shadow.root), str(run_dir)]
        launcher = [sys.executable, "-I", "-S", str(self._tools / LAUNCHER_FILE)]
        launcher.append(json.dumps(config))
        if self.isolation != "bwrap":
            return launcher
        bwrap = bwrap_path()
        assert bwrap
        return bwrap_command(
            bwrap,
            writable=[self.shadow.root, run_dir],
            readonly=[self._tools, self.project_root, *readonly],
            keep=keep_paths([self.interpreter, Path(sys.executable)]),
            cwd=self.shadow.root,
            argv=launcher,
        )

    def _probe(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run an interpreter check exactly as tests run: sealed, allowlisted env, limits."""
        run_dir = self._base / f"probe-{next(self._counter)}"
        (run_dir / "home").mkdir(parents=True)
        (run_dir / "tmp").mkdir()
        env = build_env(
            home=run_dir / "home",
            tmp=run_dir / "tmp",
            interpreter=self.interpreter,
            python_path=[],
            ours={},
            passthrough=self.settings.env_passthrough,
        )
        try:
            return subprocess.run(
                self._sealed(argv, run_dir, []),
                cwd=run_dir,
                env=env,
                capture_output=True,
                text=True,
                timeout=30,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)

    def _pytest_options(self, timeout_plugin: bool, *, explicit_timeout_plugin: bool) -> list[str]:
        options = ["-p", "no:cacheprovider", "-p", PLUGIN_MODULE, "--capture=tee-sys", "-q"]
        options.append("--continue-on-collection-errors")  # one broken file must not hide all
        options += ["--rootdir", str(self.shadow.root), "-o", "console_output_style=classic"]
        if timeout_plugin:
            if explicit_timeout_plugin:
                options += ["-p", "pytest_timeout"]
            options += ["--timeout", f"{self.settings.test_timeout_s:g}"]
            options += ["--timeout-method=signal"]
        return options

    def _limits(self) -> dict[str, int]:
        s = self.settings
        limits = {"CORE": 0, "NPROC": s.max_processes}
        if s.memory_mb:
            limits["AS"] = s.memory_mb * 1024 * 1024
        if s.file_size_mb:
            limits["FSIZE"] = s.file_size_mb * 1024 * 1024
        return limits

    def _watch(
        self, tree: ProcessTree, stream: Path, cancel: CancelToken | None, deadline: float | None
    ) -> _Session:
        s = self.settings
        session = _Session()
        output = bytearray()
        tail = _JsonlTail(stream)
        pipe = tree.process.stdout
        assert pipe is not None
        fd = pipe.fileno()
        os.set_blocking(fd, False)
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        eof = False
        current: str | None = None
        phase_start = current_start = time.monotonic()
        next_process_check = 0.0
        exited_at: float | None = None
        finished = False
        while True:
            if not eof:
                for _key, _mask in selector.select(timeout=POLL_S):
                    eof = self._drain(fd, output, s.output_cap_bytes) or eof
            else:
                time.sleep(POLL_S)
            now = time.monotonic()
            for event in tail.read_new():
                session.events.append(event)
                kind = event.get("event")
                if kind == "start":
                    current, current_start = event["nodeid"], now
                elif kind == "result":
                    current, phase_start = None, now
                elif kind == "finish":  # tests are over: what else still runs is left behind
                    session.exit_code = int(event.get("exitstatus", 0))
                    tree.reap_leftovers(keep=tree.pid)
                elif kind == "unconfigured":
                    finished = True
            if finished:
                # pytest is done and has said so: skip the interpreter's shutdown (seconds on a
                # busy machine), and stop whatever the tests left running.
                tree.kill()
                break
            if tree.process.poll() is not None:
                if tree.killed and not session.kill_reason:  # killed by cancel(), from elsewhere
                    session.kill_reason, session.killed_nodeid = "cancelled", current
                if exited_at is None:
                    exited_at = now
                    tree.reap_leftovers()  # background processes a test left (fallback mode)
                # A leftover background process may hold the pipe open: do not wait for it.
                if eof or now - exited_at > 0.5:
                    break
                continue
            reason = ""
            if cancel is not None and cancel.cancelled:
                reason = "cancelled"
            elif len(output) > s.output_cap_bytes:
                reason = "output"
            elif deadline is not None and now > deadline:
                reason = "run-timeout"
            elif current and now > current_start + s.test_timeout_s + s.grace_s:
                reason = "timeout"
            elif not current and now > phase_start + s.startup_timeout_s:
                reason = "startup"
            elif now >= next_process_check:
                next_process_check = now + PROCESS_CHECK_S
                if tree.count_processes() > s.max_processes + 1:  # +1: bwrap's own init
                    reason = "processes"
            if reason:
                session.kill_reason, session.killed_nodeid = reason, current
                tree.kill()
                break
        try:
            tree.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            tree.kill()
        end = time.monotonic() + 0.3
        while not eof and time.monotonic() < end:
            if not selector.select(timeout=POLL_S):
                break
            eof = self._drain(fd, output, s.output_cap_bytes)
        selector.close()
        pipe.close()
        session.events.extend(tail.read_new())
        session.output = bytes(output)
        if session.exit_code is None:
            session.exit_code = tree.process.returncode
        return session

    @staticmethod
    def _drain(fd: int, output: bytearray, cap: int) -> bool:
        """Read what the pipe holds; True at end of file. Keeps at most cap + 64 KiB."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return False
        except OSError:
            return True
        if not chunk:
            return True
        if len(output) <= cap:
            output += chunk
        else:  # keep counting past the cap but only the newest bytes
            output += chunk
            del output[: len(output) - cap - 65536]
        return False

    # -- turning events into results --------------------------------------------------------------
    def _map_text(self, text: str) -> str:
        return text.replace(str(self.shadow.root), str(self.project_root)) if text else text

    def _map_frame(self, raw: Mapping[str, Any], line_maps: Mapping[Path, list[int]]) -> Frame:
        path, line = str(raw["path"]), int(raw["line"])
        function, code = str(raw["function"]), str(raw.get("code", ""))
        user = self.shadow.to_user(path)
        if user is None:
            return Frame(path, line, function, code)
        mapping = line_maps.get(Path(path))
        if mapping is not None and 0 < line <= len(mapping):  # `code` stays what actually ran
            line = mapping[line - 1]
        return Frame(str(user), line, function, code)

    def _test_result(
        self, event: Mapping[str, Any], line_maps: Mapping[Path, list[int]]
    ) -> TestResult:
        s = self.settings
        return TestResult(
            nodeid=event["nodeid"],
            outcome=event["outcome"],
            duration=float(event.get("duration") or 0.0),
            exc_type=event.get("exc_type") or "",
            message=self._map_text(_truncate(event.get("message") or "", 4000)),
            assert_left=event.get("assert_left"),
            assert_right=event.get("assert_right"),
            assert_op=event.get("assert_op"),
            frames=[self._map_frame(f, line_maps) for f in event.get("frames") or []],
            stdout=_truncate(event.get("stdout") or "", s.capture_cap_chars),
            stderr=_truncate(event.get("stderr") or "", s.capture_cap_chars),
            longrepr=self._map_text(_truncate(event.get("longrepr") or "", s.longrepr_cap_chars)),
        )

    def _kill_message(self, reason: str) -> str:
        s = self.settings
        return KILL_MESSAGES.get(reason, reason).format(
            timeout=s.test_timeout_s,
            cap=s.output_cap_bytes,
            procs=s.max_processes,
            startup=s.startup_timeout_s,
        )

    def _killed_result(self, session: _Session, nodeid: str) -> TestResult:
        marker = START_MARKER + nodeid.encode("utf-8", "replace") + b"\n"
        index = session.output.rfind(marker)
        # No marker left: the output cap dropped it; the newest output is the killed test's.
        last_output = session.output[index + len(marker) :] if index >= 0 else session.output
        text = last_output.decode("utf-8", "replace")
        outcome = "timeout" if session.kill_reason in ("timeout", "run-timeout") else "error"
        reason = session.kill_reason
        return TestResult(
            nodeid=nodeid,
            outcome=outcome,  # type: ignore[arg-type]
            duration=self.settings.test_timeout_s if reason == "timeout" else 0.0,
            exc_type={"timeout": "Timeout", "cancelled": "Cancelled"}.get(reason, "Killed"),
            message=self._kill_message(reason),
            stdout=_truncate(text, self.settings.capture_cap_chars),
        )

    def _collect_errors(self, session: _Session) -> list[CollectError]:
        errors: dict[str, CollectError] = {}
        for event in session.of("collect_error"):
            path = self.shadow.to_user(event["path"]) or event["path"]
            errors.setdefault(
                event["nodeid"],
                CollectError(
                    nodeid=event["nodeid"],
                    path=str(path),
                    line=int(event.get("line") or 0),
                    exc_type=event.get("exc_type") or "",
                    message=self._map_text(event.get("message") or ""),
                    longrepr=self._map_text(event.get("longrepr") or ""),
                ),
            )
        for event in session.of("collect_failed"):
            if event["nodeid"] not in errors:
                longrepr = self._map_text(event.get("longrepr") or "")
                last = longrepr.strip().splitlines()[-1:] or [""]
                path = str(self.project_root / nodeid_file(event["nodeid"]))
                errors[event["nodeid"]] = CollectError(
                    event["nodeid"], path, 0, "CollectError", last[0], longrepr
                )
        return list(errors.values())

    def _output_tail(self, session: _Session, chars: int = 3000) -> str:
        text = session.output.decode("utf-8", "replace").strip()
        return self._map_text(text[-chars:])

    @staticmethod
    def _attach_probes(tests: Iterable[TestResult], records: list[dict[str, Any]]) -> None:
        by_id = {t.nodeid: t for t in tests}
        for record in records:
            if record.get("truncated"):
                targets = [by_id[record["test"]]] if record.get("test") in by_id else by_id.values()
                for truncated in targets:
                    truncated.probes_truncated = True
                continue
            test = by_id.get(record.get("test", ""))
            if test is None:
                continue
            try:
                test.probes.append(
                    ProbeRecord(
                        probe=str(record.get("probe", "")),
                        line=int(record.get("line", 0)),
                        kind=str(record.get("kind", "")),
                        values={str(k): str(v) for k, v in (record.get("values") or {}).items()},
                        test=str(record.get("test", "")),
                        text=str(record.get("text", "")),
                    )
                )
            except (TypeError, ValueError):
                continue
