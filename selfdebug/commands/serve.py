"""Run the selfdebug language server over stdio (what editors start), or on a TCP port.

It stops when the client does (the end of its input, or its disconnection over TCP) and on
SIGINT, SIGTERM or SIGHUP: every job is cancelled first, its test processes stopped and its
shadow copy removed (exit 128 + the signal).

Over TCP the server listens on loopback only (unless --allow-remote-clients) and writes a random
token to a file only you can read (--token-file; default $XDG_RUNTIME_DIR/selfdebug/
serve-PORT.token): the client sends its content as `initializationOptions.token` in `initialize`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on a TCP socket instead of stdio (e.g. 127.0.0.1:2087); loopback only, "
        "and clients must present the token from --token-file",
    )
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help="with --tcp: where to write the client token (mode 0600; default "
        "$XDG_RUNTIME_DIR/selfdebug/serve-PORT.token)",
    )
    parser.add_argument(
        "--allow-remote-clients",
        action="store_true",
        help="with --tcp: allow a non-loopback bind address (anyone who can reach it and read "
        "the token can run code as you)",
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
    from selfdebug.server.lsp import tcp
    from selfdebug.server.lsp.server import create_server

    server = create_server()
    if address is None:
        server.start_io()
        return _exit_code(server)
    try:
        tcp.check_address(address[0], allow_remote=args.allow_remote_clients)
    except tcp.AddressRefused as error:
        return _fail(str(error), 2)
    try:
        sock = tcp.bind(*address)
    except OSError as error:  # the address is taken or cannot be bound
        return _fail(f"cannot listen on {args.tcp}: {error.strerror or error}", 1)
    port = sock.getsockname()[1]
    token_file = Path(args.token_file) if args.token_file else tcp.default_token_file(port)
    try:
        token = tcp.write_token_file(token_file)
    except OSError as error:
        sock.close()
        return _fail(f"cannot write the token file {token_file}: {error.strerror or error}", 2)
    print(
        f"selfdebug serve: listening on {address[0]}:{port}; clients must send the token in "
        f"{token_file} as initializationOptions.token",
        file=sys.stderr,
        flush=True,
    )
    try:
        tcp.serve(server, sock, token)
    finally:
        token_file.unlink(missing_ok=True)
    return _exit_code(server)


def _exit_code(server: SelfDebugServer) -> int:
    """0 when the client ended the server; 128 + the signal when one stopped it."""
    from selfdebug.exit_codes import for_signal

    return 0 if server.stopped_by is None else for_signal(server.stopped_by)


def _fail(message: str, code: int) -> int:
    print(f"selfdebug serve: {message}", file=sys.stderr)
    return code
