"""The local model process (started by selfdebug itself; not for users): llama.cpp runs here so
that a crash in native code cannot take the language server or the CLI down with it."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reply-fd", type=int, required=True)
    parser.add_argument("--params", required=True, metavar="JSON")


def main(args: argparse.Namespace) -> int:
    from selfdebug.server.backends.model_worker import serve
    from selfdebug.server.backends.worker_protocol import WorkerParams

    return serve(WorkerParams.from_json(args.params), args.reply_fd)
