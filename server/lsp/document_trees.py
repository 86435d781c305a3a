"""The syntax tree of each open document's current text: parsed once per text, a big one off the
event loop, and none at all for a document over the size limit (`maxDocumentBytes`).

Why: editors ask for code actions on every cursor move and after every change, and every request
is answered on one event loop; a 10 MB document parsed there at each request held every other
request for seconds (issue 51). A document's tree is kept for its current text (the last few
documents); a document of more than INLINE_CHARS characters is parsed in a thread of its own,
whose parse lets the event loop take the GIL back between the chunks it reads
(`instrument.source.parse_tree`).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pygls.workspace.text_document import TextDocument

from selfdebug.instrument.source import ParsedSource, parse_text

T = TypeVar("T")

INLINE_CHARS = 64_000  # parsed on the event loop: a few milliseconds
KEPT = 8  # documents whose tree is kept


def over_limit(source: str, limit: int) -> bool:
    """Whether `source` is more than `limit` bytes in UTF-8 (without encoding it when the length
    in characters decides)."""
    if len(source) > limit:
        return True
    if 4 * len(source) <= limit or source.isascii():
        return False
    return len(source.encode("utf-8", "surrogatepass")) > limit


class DocumentTrees:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # uri -> (the text it was parsed from, its tree); the text object itself is the key:
        # pygls makes a new one at every change, and a reopened document may reuse a version
        self._kept: OrderedDict[str, tuple[str, ParsedSource]] = OrderedDict()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="selfdebug-parse")

    def tree(self, uri: str, source: str) -> ParsedSource:
        """The tree of `source`, the text of `uri` (blocking for a text not parsed yet)."""
        kept = self._get(uri, source)
        if kept is not None:
            return kept
        parsed = parse_text(source)  # an editor's text: its encoding declaration no longer applies
        with self._lock:
            self._kept[uri] = (source, parsed)
            self._kept.move_to_end(uri)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return parsed

    async def analyse(self, document: TextDocument, work: Callable[[ParsedSource], T]) -> T:
        """`work` on the tree of the document's text as it is now: on the event loop when the
        tree is kept or the document is small, else in the parse thread."""
        uri, source = document.uri, document.source
        if len(source) <= INLINE_CHARS or self._get(uri, source) is not None:
            return work(self.tree(uri, source))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, lambda: work(self.tree(uri, source)))

    def forget(self, uri: str) -> None:
        with self._lock:
            self._kept.pop(uri, None)

    def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)

    def _get(self, uri: str, source: str) -> ParsedSource | None:
        with self._lock:
            kept = self._kept.get(uri)
            if kept is None or kept[0] is not source:
                return None
            self._kept.move_to_end(uri)
            return kept[1]
