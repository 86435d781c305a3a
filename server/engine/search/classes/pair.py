"""Pairs of single edits: a repair of two tokens of one line (`range(n)` -> `range(1, n + 1)`,
`lo < v < hi` -> `lo <= v <= hi`) that no single edit makes.

Only the first small single edits of operators, literals and bounds (the most suspicious
lines, the smallest edits: the order of the single edits) are paired, two that change
different places of one line, so the pairs stay few and come after every single edit in the
order; they take what the single edits leave of the search's budget (at least a sixth). Pairs
across lines, or with another name in a name's place, are not made: on the dev sets' one or two
visible tests they passed by luck (two of two such fixes failed the hidden tests) and fixed
nothing the hidden tests confirmed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from selfdebug.server.engine.search.edit_class import Edit, EditClass, example

PAIRED = 24  # single edits considered for pairs
MAX_PART_SIZE = 2

EXAMPLES = (
    example(
        "Python-Markdown/markdown@07f2057734b7:markdown/preprocessors.py::HtmlBlockPreprocessor._equal_tags",
        """\
def _equal_tags(self, left_tag, right_tag):
    if ("/" + left_tag) == right_tag:
        return True
    if (left_tag == "--"):
        return True
    elif right_tag[0] != "<":
        return True
""",
        """\
def _equal_tags(self, left_tag, right_tag):
    if ("/" + left_tag) == right_tag:
        return True
    if (left_tag == "--"):
        return True
    elif right_tag[0] == "/":
        return True
""",
        6,
    ),
    example(
        "bottlepy/bottle@2a5b2c474bf1:bottle.py::FileCheckerThread.run",
        """\
def run(self):
    while not self.status:
        if not exists(self.lockfile):
            self.status = 2
        elif mtime(self.lockfile) < time.time() - self.interval * 2:
            self.status = 1
    if self.status != 5:
        thread.interrupt_main()
""",
        """\
def run(self):
    while not self.status:
        if not exists(self.lockfile):
            self.status = 2
        elif mtime(self.lockfile) < time.time() - self.interval - 5:
            self.status = 1
    if self.status != 5:
        thread.interrupt_main()
""",
        5,
    ),
    example(
        "ipython/ipython@876016f4c712:IPython/parallel/client/asyncresult.py::AsyncResult.wait",
        """\
def wait(self, timeout):
    try:
        self._result = self._reconstruct_result(results)
    finally:
        if timeout is not None and timeout < 0:
            timeout = 10
""",
        """\
def wait(self, timeout):
    try:
        self._result = self._reconstruct_result(results)
    finally:
        if timeout is None or timeout < 0:
            # cutoff infinite wait at 10s
            timeout = 10
""",
        5,
    ),
    example(
        "pytest-dev/pytest@59b3693988fc:_pytest/capture.py::_py36_windowsconsoleio_workaround",
        """\
def _py36_windowsconsoleio_workaround():
    if not sys.platform.startswith('win32') and sys.version_info[:2] >= (3, 6):
        return
""",
        """\
def _py36_windowsconsoleio_workaround():
    if not sys.platform.startswith('win32') or sys.version_info[:2] < (3, 6):
        return
""",
        2,
    ),
)


class Pair(EditClass):
    name = "pair"
    changes = "two small operator, literal or bound edits at different places of one line"
    where = "after the single edits"
    size = 0
    order = 310
    found = (9, 9)
    examples = EXAMPLES
    # tokens: operators, literals and bounds (not names, deletions or inserted statements)
    combines = (
        "comparison-operator", "arithmetic-operator", "boolean-operator", "integer-literal",
        "boolean-literal", "other-literal", "shifted-bound", "shifted-argument",
    )  # fmt: skip

    def combine(
        self, singles: Sequence[Edit], code: str, body_start: int, limit: int
    ) -> Iterator[Edit]:
        """Pairs of the first `PAIRED` small edits of `combines` in `singles` that change
        different spans of one line, best first: lower ranks, then smaller, then earlier."""
        if limit <= 0:
            return
        chosen = [e for e in singles if e.size <= MAX_PART_SIZE and e.edit_class in self.combines]
        found = []
        for (i, a), (j, b) in combinations(enumerate(chosen[:PAIRED]), 2):
            if a.line != b.line:
                continue
            first, second = sorted((a, b), key=lambda e: e.start)
            if first.end > second.start or (first.start == second.start == first.end):
                continue  # overlapping, or two insertions at one place
            text = code[: second.start] + second.after + code[second.end :]
            text = text[: first.start] + first.after + text[first.end :]
            key = (a.rank + b.rank, a.size + b.size, i + j)
            found.append((key, Edit(
                line=first.line,
                rank=max(a.rank, b.rank),
                size=a.size + b.size,
                edit_class=self.name,
                before=f"{first.before} ... {second.before}",
                after=f"{first.after} ... {second.after}",
                code=text,
                start=first.start,
                end=second.end,
                parts=(first, second),
            )))  # fmt: skip
        found.sort(key=lambda item: item[0])
        for _key, edit in found[:limit]:
            yield edit


EDIT_CLASS = Pair()
