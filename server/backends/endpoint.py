"""Where code may be sent: loopback endpoints freely, anything else only with explicit consent.

Why: a debugging session sends the user's source code to the model. A local server on this
machine keeps it here; any other host is a remote service, so the user must opt in with the
`allow_remote` setting before a single request is made.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from selfdebug.server.backends.base import BackendConfigError


def endpoint_host(url: str) -> str:
    """The host part of `url`; BackendConfigError when it is not an http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:
        host, parts = "", None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        raise BackendConfigError(
            f"the model endpoint {url!r} is not an http(s) URL; set endpoint_url, "
            "e.g. http://127.0.0.1:8000/v1"
        )
    return host


def is_loopback(host: str) -> bool:
    """localhost, 127.0.0.0/8 and ::1 stay on this machine."""
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a DNS name: it could resolve anywhere


def require_consent(url: str, allow_remote: bool) -> None:
    """Raise BackendConfigError (before any request) for a non-loopback URL without consent."""
    host = endpoint_host(url)
    if not allow_remote and not is_loopback(host):
        raise BackendConfigError(
            f"the model endpoint {host} is not on this machine, and using it would send your code "
            "there; to allow this, pass --allow-remote (CLI) or set the editor setting "
            "selfdebug.allowRemote to true (or use a local model)"
        )
