"""Find a function's tests and run them in a sealed shadow copy of the project."""

from selfdebug.server.runner.discover import DiscoveryError, TestCandidate, find_tests
from selfdebug.server.runner.project import cli_boundary, find_project_root
from selfdebug.server.runner.results import Frame, ProbeRecord, RunResult, TestResult
from selfdebug.server.runner.runner import CollectError, CollectResult, ProjectRunner
from selfdebug.server.runner.sandbox import (
    SandboxUnavailable,
    bubblewrap_install_hint,
    isolation_warning,
)
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import ShadowCopy, ShadowTooLarge

__all__ = [
    "CollectError",
    "CollectResult",
    "DiscoveryError",
    "Frame",
    "ProbeRecord",
    "ProjectRunner",
    "RunResult",
    "RunnerSettings",
    "SandboxUnavailable",
    "ShadowCopy",
    "ShadowTooLarge",
    "TestCandidate",
    "TestResult",
    "bubblewrap_install_hint",
    "cli_boundary",
    "find_project_root",
    "find_tests",
    "isolation_warning",
]
