"""The session report: the `selfdebug/sessionReport` notification and its markdown file.

Why both: the VS Code client renders the notification in a panel; any other editor can open the
markdown file (`window/showDocument`, when the `showReport` setting asks for it). The file sits
next to the session's transcript in the state directory, never in the user's project.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.engine.types import DebugResult

METHOD = "selfdebug/sessionReport"


def state_dir() -> Path:
    """$XDG_STATE_HOME/selfdebug (default ~/.local/state/selfdebug)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "selfdebug"


def new_session_dir(qualname: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", qualname)
    folder = state_dir() / "sessions" / f"{stamp}-{safe}-{os.getpid()}-{time.monotonic_ns()}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


TIME_BUDGET_NOTE = (
    "the time budget was spent before a fix was found; what it found is shown "
    "(give it more with the `selfdebug.timeBudgetSeconds` setting)"
)


@dataclass
class SessionReport:
    uri: str
    qualname: str
    summary: str
    explanation: str
    diff: str
    transcript_path: str
    success: bool
    stop_reason: str
    applied: bool | None = None  # None: no edit was offered
    note: str = ""  # why the edit was not applied, a run error...
    report_path: str = ""
    markdown: str = ""
    isolation: str = ""  # "sandboxed: bubblewrap" / "NOT sandboxed: rlimits"
    isolation_warning: str = ""  # what running without a sandbox means ("" when sandboxed)
    warnings: list[str] = field(default_factory=list)  # safety warnings about the candidate
    failed_calls: list[str] = field(default_factory=list)  # "turn 1: the model call stalled..."

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "qualname": self.qualname,
            "summary": self.summary,
            "explanation": self.explanation,
            "diff": self.diff,
            "transcriptPath": self.transcript_path,
            "success": self.success,
            "stopReason": self.stop_reason,
            "applied": self.applied,
            "note": self.note,
            "reportPath": self.report_path,
            "markdown": self.markdown,
            "isolation": self.isolation,
            "isolationWarning": self.isolation_warning,
            "warnings": self.warnings,
            "failedCalls": self.failed_calls,
        }


def from_result(uri: str, qualname: str, result: DebugResult) -> SessionReport:
    return SessionReport(
        uri=uri,
        qualname=qualname,
        summary=result.summary(),
        explanation=result.explanation,
        diff=result.diff,
        transcript_path=str(result.transcript_path or ""),
        success=result.success,
        stop_reason=result.stop_reason,
        note=result.error or (TIME_BUDGET_NOTE if result.stop_reason == "time_budget" else ""),
        warnings=list(result.warnings),
        failed_calls=[call.describe() for call in result.failed_calls],
    )


def render_markdown(report: SessionReport) -> str:
    verdict = "a candidate fix passes the chosen tests" if report.success else "no fix proposed"
    lines = [
        f"# Self-debug `{report.qualname}`",
        "",
        f"**Result:** {verdict}. {report.summary}",
    ]
    if report.applied is not None:
        lines.append(f"**Edit applied:** {'yes' if report.applied else 'no'}")
    if report.isolation:
        lines.append(f"**Isolation:** {report.isolation}")
    if report.isolation_warning:
        lines += ["", f"> **Warning:** {report.isolation_warning}"]
    for warning in report.warnings:
        lines += ["", f"> **Warning:** {warning}"]
    for call in report.failed_calls:
        lines += ["", f"> **Failed call:** {call}"]
    if report.note:
        lines += ["", f"> {report.note}"]
    if report.explanation:
        lines += ["", "## Explanation", "", report.explanation.strip()]
    if report.diff:
        lines += ["", "## Diff", "", "```diff", report.diff.rstrip("\n"), "```"]
    if report.transcript_path:
        lines += ["", f"Transcript: `{report.transcript_path}`"]
    return "\n".join(lines) + "\n"


def write_markdown(report: SessionReport, folder: Path) -> Path:
    report.markdown = render_markdown(report)
    path = folder / "report.md"
    path.write_text(report.markdown, encoding="utf-8")
    report.report_path = str(path)
    return path
