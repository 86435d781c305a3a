"""The "which model" flags shared by `fix`, `demo` and `bench repair`, and the BackendSettings
they mean. One place, so the three commands accept the same flags with the same meaning."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.backends.settings import BackendSettings


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("llama", "openai"), default="llama")
    parser.add_argument(
        "--model",
        default="",
        metavar="NAME|PATH",
        help="a known model (`selfdebug models`; default qwen2.5-coder-1.5b) or a GGUF file",
    )
    parser.add_argument("--endpoint", default="", metavar="URL", help="OpenAI-compatible base URL")
    parser.add_argument(
        "--model-name", default="", metavar="NAME", help="model name sent to the endpoint"
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="consent to send the code to a non-loopback endpoint",
    )
    parser.add_argument(
        "--stall-limit",
        type=float,
        default=40.0,
        metavar="SECONDS",
        help="stop a model call that made no progress (no prompt batch read, no token) for this"
        " long (default 40); a slow but steady call is never stopped by it",
    )
    parser.add_argument(
        "--call-deadline",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="a fixed total per model call on top of the stall limit (default 0: none); once a"
        " call has been timed, a call the measured speed says needs more gets twice its"
        " expected time",
    )
    parser.add_argument(
        "--lookup-decoding",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="local model: prompt-lookup decoding (default off: on a 2-core CPU it measured"
        " 0.3-0.5x; for a GPU, where a batch costs about one token)",
    )


def backend_settings_from(args: argparse.Namespace) -> BackendSettings:
    from selfdebug.server.backends.settings import BackendSettings

    return BackendSettings(
        backend=args.backend,
        model_path=args.model,
        endpoint_url=args.endpoint,
        model_name=args.model_name,
        allow_remote=args.allow_remote,
        stall_s=args.stall_limit,
        timeout_s=args.call_deadline,
        lookup_decoding=args.lookup_decoding,
    )


def model_argv(args: argparse.Namespace) -> list[str]:
    """The same choice as command-line flags (for a command that hands over to `fix`)."""
    argv = ["--backend", args.backend]
    for flag, value in (
        ("--model", args.model),
        ("--endpoint", args.endpoint),
        ("--model-name", args.model_name),
    ):
        if value:
            argv += [flag, value]
    if args.allow_remote:
        argv.append("--allow-remote")
    argv += ["--stall-limit", f"{args.stall_limit:g}", "--call-deadline", f"{args.call_deadline:g}"]
    argv.append("--lookup-decoding" if args.lookup_decoding else "--no-lookup-decoding")
    return argv
