"""How a test run is bounded and isolated: one typed place for every limit the runner applies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

IsolationMode = Literal["auto", "bwrap", "rlimits"]


@dataclass
class RunnerSettings:
    """Limits and choices for running a project's tests.

    The defaults suit an editor session: a hung test costs `test_timeout_s` plus a short grace,
    never more, and a runaway test cannot fill the disk, memory or process table.
    """

    interpreter: str | None = None  # None: the project's .venv/venv, else sys.executable
    trust_project: bool = False  # the project's own interpreter may run (the user trusts it)
    isolation: IsolationMode = "auto"  # auto: bubblewrap when it works here, else rlimits
    require_sandbox: bool = False  # refuse to run without bubblewrap (no rlimits fallback)
    shadow_cap_bytes: int = 512 * 1024 * 1024  # the shadow copy's total size
    test_timeout_s: float = 10.0  # per test (setup + call + teardown)
    grace_s: float = 0.4  # watchdog slack after pytest-timeout should have fired
    startup_timeout_s: float = 60.0  # interpreter start + collection, and time between tests
    output_cap_bytes: int = 2 * 1024 * 1024  # stdout+stderr of the whole pytest process
    capture_cap_chars: int = 20_000  # per test stdout/stderr kept in TestResult
    longrepr_cap_chars: int = 20_000
    memory_mb: int = 4096  # RLIMIT_AS of the test process; 0: unlimited
    file_size_mb: int = 512  # RLIMIT_FSIZE; 0: unlimited
    max_processes: int = 64  # processes in the test's tree (watchdog; RLIMIT_NPROC for non-root)
    max_restarts: int = 5  # fresh pytest processes after a hard kill, to run the remaining tests
    env_passthrough: tuple[str, ...] = ()  # extra variable names the tests may see
    extra_env: dict[str, str] = field(default_factory=dict)  # set for the tests as given
