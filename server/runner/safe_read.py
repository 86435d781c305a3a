"""Reading a file that a repository controls: regular files only, with a size cap.

Why: a committed symlink `tests/test_x.py -> /dev/zero` (or `/dev/stdin`, which in the server is
the LSP channel) would otherwise be read until memory runs out or steal the editor's messages,
and a FIFO blocks its reader forever. The file is opened without following it into a device and
without blocking, then checked with fstat, so a swap between the check and the read changes
nothing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DEFAULT_CAP_BYTES = 8 * 1024 * 1024  # far above any real source file


class UnreadableFile(OSError):
    """Not a regular file, or larger than the cap: the message says which."""


def read_regular(path: Path | str, cap_bytes: int = DEFAULT_CAP_BYTES) -> bytes:
    """The bytes of `path` if it is (or links to) a regular file of at most `cap_bytes`."""
    try:
        st = os.stat(path)
    except OSError as error:
        raise UnreadableFile(error.errno, f"cannot read {path}: {error.strerror}") from error
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableFile(f"{path} is not a regular file (device, FIFO or socket): not read")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile(f"{path} is not a regular file (device, FIFO or socket): not read")
        if st.st_size > cap_bytes:
            raise UnreadableFile(
                f"{path} is {st.st_size} bytes, more than the {cap_bytes}-byte cap: not read"
            )
        chunks, size = [], 0
        while size <= cap_bytes:
            chunk = os.read(fd, min(1 << 20, cap_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap_bytes:
            raise UnreadableFile(f"{path} grew past the {cap_bytes}-byte cap while read: not read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular_text(path: Path | str, cap_bytes: int = DEFAULT_CAP_BYTES) -> str:
    return read_regular(path, cap_bytes).decode("utf-8", errors="replace")
