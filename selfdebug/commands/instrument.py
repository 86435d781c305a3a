"""Print FILE with automatic probes inserted into one function (bytes exactly; pipe into `strip`).

Example: selfdebug instrument pkg/mod.py::Class.method --level blocks > probed.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

LEVEL_CHOICES = ("entry-return", "blocks", "lines")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="FILE::FUNC", help="file and qualified function name")
    parser.add_argument(
        "--level",
        choices=LEVEL_CHOICES,
        default="blocks",
        help="entry-return (arguments, returns, exceptions), blocks (+ loops, branches), "
        "lines (+ assignments); default: blocks",
    )


def main(args: argparse.Namespace) -> int:
    from selfdebug.instrument import InstrumentError, instrument_function

    file_name, separator, qualname = args.target.rpartition("::")
    if not separator or not file_name or not qualname:
        print(
            "selfdebug instrument: expected FILE::FUNC, e.g. mod.py::Class.method", file=sys.stderr
        )
        return 2
    try:
        source = Path(file_name).read_bytes()
    except OSError as error:
        print(f"selfdebug instrument: cannot read {file_name}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        instrumented = instrument_function(source, qualname, args.level)
    except InstrumentError as error:
        print(f"selfdebug instrument: {file_name}: {error}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(instrumented)
    sys.stdout.buffer.flush()
    return 0
