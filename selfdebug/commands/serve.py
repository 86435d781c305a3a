"""Run the selfdebug language server over stdio (what editors start), or on a TCP port."""

from __future__ import annotations

import argparse
import logging
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on a TCP socket instead of stdio (e.g. 127.0.0.1:2087)",
    )
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log to PATH")
    parser.add_argument(
        "--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR")
    )


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(
        filename=args.log_file,  # None: stderr (never stdout: that is the protocol channel)
        level=getattr(logging, args.log_level),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from selfdebug.server.lsp.server import create_server

    server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            print(f"selfdebug serve: --tcp wants HOST:PORT, got {args.tcp!r}", file=sys.stderr)
            return 2
        server.start_tcp(host, int(port))
    else:
        server.start_io()
    return 0
