"""Print the folder of an editor plugin that ships inside selfdebug, for a plugin manager.

Neovim's plugin (client-neovim/ in a checkout) is installed with the package, so a lazy.nvim
spec can load the very version of the plugin that matches the server it starts:
`dir = vim.trim(vim.fn.system({ 'selfdebug', 'editor-path', 'neovim' }))`.
Exit 0; 2 when the plugin's folder is missing from this installation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from selfdebug.exit_codes import ExitCode

EDITORS = ("neovim",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("editor", choices=EDITORS, help="the editor whose plugin folder to print")


def plugin_folder(editor: str) -> Path:
    """The installed plugin's folder (symlinks resolved, so a checkout prints client-neovim/)."""
    import selfdebug

    return (Path(selfdebug.__file__).parent / editor).resolve()


def main(args: argparse.Namespace) -> int:
    folder = plugin_folder(args.editor)
    if not (folder / "lsp" / "selfdebug.lua").is_file():
        print(f"selfdebug editor-path: no {args.editor} plugin in {folder.parent}", file=sys.stderr)
        return ExitCode.USAGE
    print(folder)
    return ExitCode.OK
