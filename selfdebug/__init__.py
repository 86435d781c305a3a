"""selfdebug: debug a Python function the way a good programmer does, from the editor or the CLI."""

__version__ = "0.1.0"
