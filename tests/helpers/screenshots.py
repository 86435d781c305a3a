"""Pictures the editor tests produce for the README: shrunk PNGs, and a terminal rendered to PNG.

Why here: the README's screenshots must stay true, so the end-to-end tests make them (VS Code:
playwright's screenshot of the workbench; Neovim: the real TUI in tmux, `tmux capture-pane -e`,
whose ANSI colours are drawn cell by cell with a monospace font). Every run writes them under
test-output/; with SELFDEBUG_UPDATE_SCREENSHOTS=1 they also replace docs/images/*.png.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
FONT_BOLD = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf")


def shrink(source: Path, target: Path, width: int = 1100, colors: int = 128) -> Path:
    """A small PNG for a README: at most `width` pixels wide, an adaptive palette."""
    image = Image.open(source).convert("RGB")
    if image.width > width:
        image = image.resize((width, round(image.height * width / image.width)), Image.LANCZOS)
    target.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
    return target


def publish_screenshot(source: Path, output: Path, name: str) -> Path:
    """Shrink `source` into `output`; copy it to docs/images/`name` when asked to."""
    assert source.is_file() and source.stat().st_size > 10_000, f"no screenshot at {source}"
    small = shrink(source, output)
    if os.environ.get("SELFDEBUG_UPDATE_SCREENSHOTS") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(small, DOCS_IMAGES / name)
    return small


# -- a terminal's cells to pixels ------------------------------------------------------------------
_BASIC = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]  # fmt: skip
DEFAULT_FG = (224, 226, 234)
DEFAULT_BG = (20, 22, 27)
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_OTHER_ESCAPE = re.compile(r"\x1b(\[[0-9;?]*[A-Za-ln-z]|\][^\x07]*\x07|[()][0-9A-Za-z])")


def _xterm(index: int) -> tuple[int, int, int]:
    if index < 16:
        return _BASIC[index]
    if index < 232:
        index -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return steps[index // 36], steps[(index // 6) % 6], steps[index % 6]
    level = 8 + (index - 232) * 10
    return level, level, level


class _Pen:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.fg: tuple[int, int, int] | None = None
        self.bg: tuple[int, int, int] | None = None
        self.bold = False
        self.reverse = False

    def apply(self, codes: list[int]) -> None:
        i = 0
        while i < len(codes):
            code = codes[i]
            if code == 0:
                self.reset()
            elif code == 1:
                self.bold = True
            elif code == 22:
                self.bold = False
            elif code == 7:
                self.reverse = True
            elif code == 27:
                self.reverse = False
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.fg = _BASIC[code - 30 if code < 90 else code - 82]
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.bg = _BASIC[code - 40 if code < 100 else code - 92]
            elif code == 39:
                self.fg = None
            elif code == 49:
                self.bg = None
            elif code in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    color = _xterm(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    color = (codes[i + 2], codes[i + 3], codes[i + 4])
                    i += 4
                else:
                    break
                if code == 38:
                    self.fg = color
                else:
                    self.bg = color
            i += 1

    def colors(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        fg, bg = self.fg or DEFAULT_FG, self.bg or DEFAULT_BG
        return (bg, fg) if self.reverse else (fg, bg)


def render_terminal(ansi: str, target: Path, columns: int, rows: int, size: int = 15) -> Path:
    """Draw `tmux capture-pane -e -p` output (SGR colours and attributes) as a PNG."""
    font = ImageFont.truetype(str(FONT), size)
    bold = ImageFont.truetype(str(FONT_BOLD), size)
    cell_w, cell_h = round(font.getlength("M")), round(size * 1.3)
    image = Image.new("RGB", (columns * cell_w, rows * cell_h), DEFAULT_BG)
    draw = ImageDraw.Draw(image)
    pen = _Pen()
    for row, line in enumerate(ansi.split("\n")[:rows]):
        line = _OTHER_ESCAPE.sub("", line)
        column = 0
        position = 0
        for match in [*_SGR.finditer(line), None]:
            end = match.start() if match else len(line)
            for char in line[position:end]:
                if column >= columns:
                    break
                fg, bg = pen.colors()
                x, y = column * cell_w, row * cell_h
                draw.rectangle([x, y, x + cell_w - 1, y + cell_h - 1], fill=bg)
                if char != " ":
                    draw.text(
                        (x, y + (cell_h - size) // 2),
                        char,
                        font=bold if pen.bold else font,
                        fill=fg,
                    )
                column += 1
            if match:
                codes = [int(c) for c in re.split("[;:]", match.group(1)) if c != ""] or [0]
                pen.apply(codes)
                position = match.end()
        # tmux trims trailing blanks: the rest of the row keeps the last background
        _, bg = pen.colors()
        if column < columns:
            draw.rectangle(
                [column * cell_w, row * cell_h, columns * cell_w, (row + 1) * cell_h - 1], fill=bg
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
    return target
