"""Reading a service's settings from a parsed config dict."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


def get_host(config):
    return config.get("host") or DEFAULT_HOST


def get_port(config):
    """The port as an int; the default when the key is missing or null.
    Port 0 is kept: it asks the OS for a free port."""
    value = config.get("port")
    port = int(value)
    if not 0 <= port <= 65535:
        raise ValueError(f"port out of range: {port}")
    return port


def bind_address(config):
    return f"{get_host(config)}:{get_port(config)}"
