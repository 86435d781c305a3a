"""Instrument every function of this interpreter's standard library at every level; report counts.

For each function and level: the instrumented file must compile, its syntax tree minus the probes
must equal the original one, and strip() must give back the original bytes.
Usage: .venv/bin/python scripts/stdlib_roundtrip.py [--limit N] [--json]; exit status 1 when any
check fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from selfdebug.instrument.corpus import roundtrip, stdlib_files, stdlib_root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="stop after N functions")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    started = time.perf_counter()
    result = roundtrip(stdlib_files(), limit=args.limit)
    seconds = time.perf_counter() - started
    if args.json:
        report = {
            "stdlib": str(stdlib_root()),
            "files": result.files,
            "unparseable_files": result.unparseable,
            "functions": result.functions,
            "checks": result.checks,
            "failures": [vars(failure) for failure in result.failures],
            "seconds": round(seconds, 1),
        }
        print(json.dumps(report, indent=2))
    else:
        print(f"stdlib: {stdlib_root()}")
        print(result.summary() + f" in {seconds:.1f} s")
        for entry in result.unparseable:
            print(f"  unparseable, skipped: {entry}")
        for failure in result.failures[:50]:
            print(f"  FAIL {failure.path}::{failure.qualname} [{failure.level}] {failure.reason}")
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
