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
    address = None
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit() or int(port) > 65535:
            return _fail(f"--tcp wants HOST:PORT (port 0-65535), got {args.tcp!r}", 2)
        address = (host, int(port))
    try:
        logging.basicConfig(
            filename=args.log_file,  # None: stderr (never stdout: that is the protocol channel)
            level=getattr(logging, args.log_level),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    except OSError as error:
        return _fail(f"cannot write the log file {args.log_file}: {error.strerror or error}", 2)
    from selfdebug.server.lsp.server import create_server

    server = create_server()
    if address is None:
        server.start_io()
        return 0
    try:
        server.start_tcp(*address)
    except OSError as error:  # the address is taken or cannot be bound
        return _fail(f"cannot listen on {args.tcp}: {error.strerror or error}", 1)
    return 0


def _fail(message: str, code: int) -> int:
    print(f"selfdebug serve: {message}", file=sys.stderr)
    return code
