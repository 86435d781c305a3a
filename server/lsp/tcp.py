"""`selfdebug serve --tcp`: loopback only, and a token the client must present.

Why: the server runs tests and model code with the user's rights and takes its interpreter and
isolation from the client's settings, so any local process able to connect could make it run
anything. The listener binds loopback addresses only (another address needs
`--allow-remote-clients`, and then anyone who can reach it and read the token is trusted), and
it writes a fresh random token to a file only the user can read (0600, in a 0700 folder); the
client sends the file's content as `initializationOptions.token` in `initialize`. Nothing else is
handled before that, and a wrong token closes the connection (protocol.py).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import secrets
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, cast

from selfdebug.server.lsp.protocol import AnsweringProtocol
from selfdebug.server.lsp.transport import read_messages

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer

logger = logging.getLogger(__name__)


class AddressRefused(ValueError):
    """The bind address is not loopback and remote clients were not allowed."""


def default_token_file(port: int) -> Path:
    """$XDG_RUNTIME_DIR/selfdebug/serve-PORT.token (else ~/.local/state/selfdebug/...)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("XDG_STATE_HOME")
    folder = Path(base) if base else Path.home() / ".local" / "state"
    return folder / "selfdebug" / f"serve-{port}.token"


def write_token_file(path: Path) -> str:
    """A new random token in `path`, readable by the user only (the folder too)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    path.unlink(missing_ok=True)  # never reuse a file someone else may have opened
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, token.encode("ascii"))
    finally:
        os.close(fd)
    return token


def check_address(host: str, *, allow_remote: bool) -> None:
    """AddressRefused unless every address `host` resolves to is loopback (or remote allowed)."""
    if allow_remote:
        return
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise AddressRefused(f"cannot resolve {host!r}: {error}") from error
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not address.is_loopback:
            raise AddressRefused(
                f"{host} ({address}) is not a loopback address; the server only listens on "
                "127.0.0.1 / ::1 unless --allow-remote-clients is given"
            )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (bound before the token is written, so port 0 is known)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    infos = socket.getaddrinfo(host, port, family=0, type=socket.SOCK_STREAM)
    family = infos[0][0] if infos else family
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(infos[0][4] if infos else (host, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def serve(server: SelfDebugServer, sock: socket.socket, token: str) -> None:
    """Serve on `sock` until an authenticated client disconnects or the server exits. One client
    at a time (the server has one protocol); a client with a wrong token is dropped and the
    server keeps listening, so a stranger cannot stop it either."""
    protocol = cast(AnsweringProtocol, server.protocol)
    protocol.required_token = token
    server._stop_event = stopped = threading.Event()
    busy = False

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal busy
        if busy:
            writer.close()
            return
        busy = True
        protocol.authenticated = False
        protocol.set_writer(writer)  # type: ignore[arg-type]
        try:
            await read_messages(reader, protocol, stopped)
        finally:
            busy = False
            writer.close()
            if protocol.authenticated:
                stopped.set()  # the editor went away: so does its server (as over stdio)

    async def main() -> None:
        listener = await asyncio.start_server(connection, sock=sock)
        async with listener:
            while not stopped.is_set():
                await asyncio.sleep(0.1)

    server.serve_until_stopped(main())
