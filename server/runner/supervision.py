"""Run one sealed, bounded process in a project's shadow copy and watch it to the end.

`Supervisor.run_folder()` makes the process's own folder (home, tmp, the event stream) and its
allowlisted environment; `Supervisor.run()` starts the command behind our launcher (limits) inside
the sandbox (bubblewrap or rlimits), reads its output without blocking and the plugin's events as
they come, and kills the whole process tree when a test runs past its timeout, when the output or
the process count passes its cap, when nothing starts in time, when the run's deadline passes or
on cancel. What it hands back (`ProcessRun`) is what the process left: events, bounded output,
exit code and why it was killed.

Why apart from the runner: it knows nothing of which tests to run, restarts or results, so
anything that must start pytest the same sealed way (the test runner, a candidate search) calls it.
"""

from __future__ import annotations

import itertools
import json
import os
import selectors
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.events import (
    PLUGIN_MODULE,
    Event,
    EventLog,
    FinishedTest,
    JsonLines,
    ProbesTruncated,
    SessionFinished,
    StartedTest,
    Unconfigured,
    parse_events,
    parse_probe_record,
)
from selfdebug.server.runner.read_rules import landlock_reads
from selfdebug.server.runner.results import ProbeRecord
from selfdebug.server.runner.sandbox import (
    ProcessTree,
    build_env,
    bwrap_command,
    bwrap_path,
    keep_paths,
    landlock_abi,
)
from selfdebug.server.runner.settings import RunnerSettings

LAUNCHER_FILE = "_selfdebug_launcher_v1.py"
START_MARKER = b"\x1e[selfdebug:start] "  # the plugin writes it before each test's output
MARKER_ENV = "SELFDEBUG_RUN_MARKER"
AUTOLOAD_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
POLL_S = 0.05
PROCESS_CHECK_S = 0.25
EXIT_WAIT_S = 0.5  # after the process exits, how long a leftover may hold the pipe open

KILL_MESSAGES = {
    "timeout": "killed by the watchdog: the test ran past its {timeout:g} s timeout",
    "output": "killed: the test process wrote more than {cap} bytes of output",
    "processes": "killed: the test started more than {procs} processes",
    "cancelled": "cancelled",
    "run-timeout": "killed: the whole run exceeded its time limit",
    "startup": "killed: pytest did not start a test within {startup:g} s (hang at import?)",
}


def kill_message(reason: str, settings: RunnerSettings) -> str:
    """What the user reads for a kill reason (one of KILL_MESSAGES' keys)."""
    return KILL_MESSAGES.get(reason, reason).format(
        timeout=settings.test_timeout_s,
        cap=settings.output_cap_bytes,
        procs=settings.max_processes,
        startup=settings.startup_timeout_s,
    )


@dataclass
class ProcessRun:
    """What one supervised process left behind."""

    events: EventLog = field(default_factory=EventLog)
    output: bytes = b""  # stdout and stderr together, the newest bytes past the cap
    exit_code: int | None = None
    kill_reason: str = ""  # a KILL_MESSAGES key; "" when it ended on its own
    killed_nodeid: str | None = None  # the test running when it was killed
    probe_records: list[ProbeRecord | ProbesTruncated] = field(default_factory=list)

    def output_of(self, nodeid: str) -> bytes:
        """The output since `nodeid` started (all of it when the cap dropped its start)."""
        marker = START_MARKER + nodeid.encode("utf-8", "replace") + b"\n"
        index = self.output.rfind(marker)
        return self.output[index + len(marker) :] if index >= 0 else self.output

    def output_tail(self, chars: int = 3000) -> str:
        return self.output.decode("utf-8", "replace").strip()[-chars:]


@dataclass(frozen=True)
class RunFolder:
    """One process's own folder and environment (removed when the `run_folder` block ends)."""

    path: Path
    env: dict[str, str]
    stream: Path  # the plugin's JSON-lines events
    probe_log: Path | None  # the probe side channel, when probes were asked for
    readonly: list[Path]  # on PYTHONPATH: mounted read-only in the sandbox
    marker: str  # every process of the run carries it in MARKER_ENV (to find them for killing)


class Supervisor:
    """Starts sealed processes in one shadow copy; each run is bounded by `settings`."""

    def __init__(
        self,
        *,
        settings: RunnerSettings,
        isolation: str,
        interpreter: Path,
        project_root: Path,
        shadow_root: Path,
        work_dir: Path,
        own_environment: bool = False,
    ) -> None:
        self.settings = settings
        self.isolation = isolation
        self.interpreter = interpreter
        # The interpreter is selfdebug's own: the pytest plugins installed beside us (say
        # pytest-asyncio) are not the project's and must not auto-load into its run.
        self.own_environment = own_environment
        self.project_root = project_root
        self.shadow_root = shadow_root
        self.work_dir = work_dir
        self.tools = work_dir / "tools"  # our plugin and launcher, read-only for the tests
        self.tools.mkdir()
        here = Path(__file__).parent
        shutil.copyfile(here / f"{PLUGIN_MODULE}.py", self.tools / f"{PLUGIN_MODULE}.py")
        shutil.copyfile(here / LAUNCHER_FILE, self.tools / LAUNCHER_FILE)
        self._counter = itertools.count()
        # The interpreter's prefixes and sys.path, from its probe (ProjectRunner sets them): in
        # the fallback, what a test may read besides the project and the system folders.
        self.interpreter_paths: tuple[str, ...] = ()

    @contextmanager
    def run_folder(self, *, probes: bool = False) -> Iterator[RunFolder]:
        """A fresh folder and environment for one process; `probes` adds the probe runtime."""
        path = self.work_dir / f"run-{next(self._counter)}"
        home, tmp = path / "home", path / "tmp"
        home.mkdir(parents=True)
        tmp.mkdir()
        stream = path / "results.jsonl"
        stream.touch()
        marker = uuid.uuid4().hex
        python_path = [self.tools]
        ours = {
            "SELFDEBUG_RESULT_STREAM": str(stream),
            MARKER_ENV: marker,
            "SELFDEBUG_USER_ROOT": str(self.project_root),
            "SELFDEBUG_SHADOW_ROOT": str(self.shadow_root),
        }
        probe_log = path / "probes.jsonl" if probes else None
        if probe_log is not None:
            from selfdebug.instrument import runtime_dir

            python_path.append(runtime_dir())
            ours["SELFDEBUG_PROBE_LOG"] = str(probe_log)
        if (self.shadow_root / "src").is_dir():
            python_path.append(self.shadow_root / "src")
        if self.own_environment:  # our plugins are named with -p (see runner.pytest_argv)
            ours[AUTOLOAD_ENV] = "1"
        env = build_env(
            home=home,
            tmp=tmp,
            interpreter=self.interpreter,
            python_path=python_path,
            ours={**self.settings.extra_env, **ours},
            passthrough=self.settings.env_passthrough,
        )
        try:
            yield RunFolder(path, env, stream, probe_log, [Path(p) for p in python_path], marker)
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def run(
        self,
        folder: RunFolder,
        argv: Sequence[str],
        *,
        cancel: CancelToken | None = None,
        deadline: float | None = None,
    ) -> ProcessRun:
        """Run `argv` (cwd: the shadow copy) sealed, watched and bounded until it is over."""
        command = self.sealed(list(argv), folder.path, folder.readonly)
        try:
            process = subprocess.Popen(
                command,
                cwd=self.shadow_root,
                env=folder.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            return ProcessRun(output=f"cannot start the test process: {error}".encode())
        tree = ProcessTree(process, (MARKER_ENV, folder.marker), self.isolation)
        unregister = cancel.on_cancel(tree.kill) if cancel else (lambda: None)
        try:
            run = _Watch(tree, folder.stream, self.settings, cancel, deadline).until_over()
        finally:
            unregister()
            if tree.process.poll() is None:
                tree.kill()
            tree.process.wait()
            tree.reap_leftovers()
        if folder.probe_log is not None:
            run.probe_records = read_probe_log(folder.probe_log)
        return run

    def sealed(self, argv: list[str], run_dir: Path, readonly: Sequence[Path]) -> list[str]:
        """`argv` behind our launcher (limits; Landlock in the fallback) and, when available,
        bubblewrap. The launcher runs in OUR interpreter, so the restrictions are in place before
        the project's interpreter (the repository's own program) starts."""
        config: dict[str, Any] = {"limits": self.limits(), "argv": argv}
        if self.isolation != "bwrap":
            config["landlock"] = [str(self.shadow_root), str(run_dir)]
            if landlock_abi():  # the kernel has it: reads limited too, and no silent failure
                config["landlock_read"] = self.readable(readonly)
                config["landlock_required"] = True
        launcher = [sys.executable, "-I", "-S", str(self.tools / LAUNCHER_FILE)]
        launcher.append(json.dumps(config))
        if self.isolation != "bwrap":
            return launcher
        bwrap = bwrap_path()
        assert bwrap
        return bwrap_command(
            bwrap,
            writable=[self.shadow_root, run_dir],
            readonly=[self.tools, self.project_root, *readonly],
            keep=keep_paths([self.interpreter, Path(sys.executable)]),
            cwd=self.shadow_root,
            argv=launcher,
        )

    def readable(self, readonly: Sequence[Path]) -> list[str]:
        """What a test may read in the fallback (besides the copy and the run's folders): the
        interpreters' folders and sys.path, our tools, the project, the system (read_rules.py)."""
        interpreters = keep_paths([self.interpreter, Path(sys.executable)])
        return landlock_reads(
            [*interpreters, *self.interpreter_paths, self.tools, self.project_root, *readonly]
        )

    def check(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run an interpreter check exactly as tests run: sealed, allowlisted env, limits."""
        run_dir = self.work_dir / f"probe-{next(self._counter)}"
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
                self.sealed(argv, run_dir, []),
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

    def check_in_copy(
        self, argv: list[str], timeout_s: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run a short check (an import probe) in the shadow copy with the tests' environment,
        sealed and limited like them."""
        with self.run_folder() as folder:
            return subprocess.run(
                self.sealed(argv, folder.path, folder.readonly),
                cwd=self.shadow_root,
                env=folder.env,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def limits(self) -> dict[str, int]:
        """The launcher's resource limits (RLIMIT_<name> -> value)."""
        s = self.settings
        limits = {"CORE": 0, "NPROC": s.max_processes}
        if s.memory_mb:
            limits["AS"] = s.memory_mb * 1024 * 1024
        if s.file_size_mb:
            limits["FSIZE"] = s.file_size_mb * 1024 * 1024
        return limits


def read_probe_log(path: Path) -> list[ProbeRecord | ProbesTruncated]:
    try:
        data = path.read_bytes()
    except OSError:
        return []
    records = (parse_probe_record(raw) for raw in JsonLines().feed(data))
    return [record for record in records if record is not None]


class _EventTail:
    """The plugin's events appended to the stream since the last call."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._offset = 0
        self._lines = JsonLines()

    def read_new(self) -> list[Event]:
        try:
            with open(self._path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except OSError:
            return []
        self._offset += len(data)
        return parse_events(self._lines.feed(data))


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


class _Watch:
    """The watchdog of one process: reads its output and events, decides when to kill it."""

    def __init__(
        self,
        tree: ProcessTree,
        stream: Path,
        settings: RunnerSettings,
        cancel: CancelToken | None,
        deadline: float | None,
    ) -> None:
        self.tree = tree
        self.settings = settings
        self.cancel = cancel
        self.deadline = deadline
        self.run = ProcessRun()
        self.output = bytearray()
        self.tail = _EventTail(stream)
        pipe = tree.process.stdout
        assert pipe is not None
        self.pipe = pipe
        self.fd = pipe.fileno()
        os.set_blocking(self.fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)
        self.eof = False
        self.current: str | None = None  # the test running now
        self.phase_start = self.current_start = time.monotonic()
        self.next_process_check = 0.0
        self.exited_at: float | None = None

    def until_over(self) -> ProcessRun:
        while not self._step():
            pass
        self._finish()
        return self.run

    def _step(self) -> bool:
        """One poll; True when watching is over."""
        if not self.eof:
            for _key, _mask in self.selector.select(timeout=POLL_S):
                self.eof = self._drain() or self.eof
        else:
            time.sleep(POLL_S)
        now = time.monotonic()
        if self._take_events(now):
            # pytest is done and has said so: skip the interpreter's shutdown (seconds on a
            # busy machine), and stop whatever the tests left running.
            self.tree.kill()
            return True
        if self.tree.process.poll() is not None:
            return self._exited(now)
        reason = self._kill_reason(now)
        if reason:
            self.run.kill_reason, self.run.killed_nodeid = reason, self.current
            self.tree.kill()
            return True
        return False

    def _drain(self) -> bool:
        return _drain(self.fd, self.output, self.settings.output_cap_bytes)

    def _take_events(self, now: float) -> bool:
        """Follow the tests as they start and finish; True once pytest is unconfigured."""
        finished = False
        for event in self.tail.read_new():
            self.run.events.append(event)
            if isinstance(event, StartedTest):
                self.current, self.current_start = event.nodeid, now
            elif isinstance(event, FinishedTest):
                self.current, self.phase_start = None, now
            elif isinstance(event, SessionFinished):  # what else still runs is left behind
                self.run.exit_code = event.exit_status
                self.tree.reap_leftovers(keep=self.tree.pid)
            elif isinstance(event, Unconfigured):
                finished = True
        return finished

    def _exited(self, now: float) -> bool:
        if self.tree.killed and not self.run.kill_reason:  # killed by cancel(), from elsewhere
            self.run.kill_reason, self.run.killed_nodeid = "cancelled", self.current
        if self.exited_at is None:
            self.exited_at = now
            self.tree.reap_leftovers()  # background processes a test left (fallback mode)
        # A leftover background process may hold the pipe open: do not wait for it.
        return self.eof or now - self.exited_at > EXIT_WAIT_S

    def _kill_reason(self, now: float) -> str:
        s = self.settings
        if self.cancel is not None and self.cancel.cancelled:
            return "cancelled"
        if len(self.output) > s.output_cap_bytes:
            return "output"
        if self.deadline is not None and now > self.deadline:
            return "run-timeout"
        if self.current and now > self.current_start + s.test_timeout_s + s.grace_s:
            return "timeout"
        if not self.current and now > self.phase_start + s.startup_timeout_s:
            return "startup"
        if now >= self.next_process_check:
            self.next_process_check = now + PROCESS_CHECK_S
            if self.tree.count_processes() > s.max_processes + 1:  # +1: bwrap's own init
                return "processes"
        return ""

    def _finish(self) -> None:
        try:
            self.tree.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.tree.kill()
        end = time.monotonic() + 0.3
        while not self.eof and time.monotonic() < end:
            if not self.selector.select(timeout=POLL_S):
                break
            self.eof = self._drain()
        self.selector.close()
        self.pipe.close()
        self.run.events.extend(self.tail.read_new())
        self.run.output = bytes(self.output)
        if self.run.exit_code is None:
            self.run.exit_code = self.tree.process.returncode
