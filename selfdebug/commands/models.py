"""List the local models selfdebug knows by name: which are installed (their registry parts),
assembled and verified (size and sha256 of the GGUF in the cache), how big, and where.
`--prepare NAME` assembles one now instead of on first use. Exit 0; 2 on an unknown name."""

from __future__ import annotations

import argparse
import json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prepare", metavar="NAME", help="assemble and verify this model now")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def model_rows() -> list[dict[str, object]]:
    from selfdebug.server.backends.assemble import install_hint, installed, verified
    from selfdebug.server.backends.models import DEFAULT_MODEL, KNOWN_MODELS, cache_path

    rows = []
    for model in KNOWN_MODELS.values():
        path = cache_path(model)
        if verified(model, path):
            state = "verified"
        elif path.exists():
            state = "mismatch (re-assembled on next use)"
        else:
            state = "not assembled (on first use)"
        rows.append(
            {
                "name": model.name,
                "default": model is DEFAULT_MODEL,
                "title": model.title,
                "prompts": model.prompt_form,
                "installed": installed(model),
                "install": install_hint(model),
                "size_mib": round(model.size / 2**20),
                "sha256": model.sha256,
                "file": state,
                "path": str(path),
            }
        )
    return rows


def main(args: argparse.Namespace) -> int:
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.base import BackendConfigError
    from selfdebug.server.backends.models import describe_choices, known_model

    if args.prepare:
        model = known_model(args.prepare)
        if model is None:
            print(f"selfdebug models: unknown model {args.prepare!r}; known: {describe_choices()}")
            return 2
        try:
            print(model_path(model))
        except BackendConfigError as error:
            print(f"selfdebug models: {error}")
            return 1
        return 0
    rows = model_rows()
    if args.json:
        print(json.dumps({"models": rows}))
        return 0
    for row in rows:
        mark = " (default)" if row["default"] else ""
        print(
            f"{row['name']}{mark}: {row['title']}, {row['size_mib']} MiB, {row['prompts']} prompts"
        )
        installed = "yes" if row["installed"] else f"no -> {row['install']}"
        print(f"    installed: {installed}")
        print(f"    file: {row['file']}  sha256 {str(row['sha256'])[:16]}...")
        print(f"    path: {row['path']}")
    return 0
