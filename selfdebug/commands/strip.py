"""Print FILE (or stdin when FILE is `-` or missing) with every inserted selfdebug probe removed.

`selfdebug instrument F::f | selfdebug strip` gives back F's exact bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="file to strip; '-' or none: stdin")


def main(args: argparse.Namespace) -> int:
    from selfdebug.instrument import strip

    if args.file == "-":
        source = sys.stdin.buffer.read()
    else:
        try:
            source = Path(args.file).read_bytes()
        except OSError as error:
            print(f"selfdebug strip: cannot read {args.file}: {error.strerror}", file=sys.stderr)
            return 2
    sys.stdout.buffer.write(strip(source))
    sys.stdout.buffer.flush()
    return 0
