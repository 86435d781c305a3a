"""Reading the chat template from a GGUF header (no model load), on hand-built GGUF files."""

from __future__ import annotations

import struct

import pytest

from selfdebug.server.backends.gguf_meta import (
    CHAT_TEMPLATE_KEY,
    GGUFFormatError,
    read_string_metadata,
)


def gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(path, pairs: list[tuple[str, int, bytes]]) -> None:
    """A GGUF v3 header with the given (key, value type, encoded value) pairs and no tensors."""
    body = b"".join(gguf_string(k) + struct.pack("<I", kind) + value for k, kind, value in pairs)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs)) + body)


TOKENS = struct.pack("<IQ", 8, 3) + b"".join(gguf_string(t) for t in ["<bos>", "a", "b"])
TEMPLATE = "{% for m in messages %}{{ m.content }}{% endfor %}"
SCORES = struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0.0, -1.0, -2.0)


def test_finds_the_chat_template_after_arrays_of_every_kind(tmp_path):
    path = tmp_path / "instruct.gguf"
    write_gguf(
        path,
        [
            ("general.name", 8, gguf_string("tiny")),
            ("llama.block_count", 4, struct.pack("<I", 2)),
            ("tokenizer.ggml.tokens", 9, TOKENS),
            ("tokenizer.ggml.scores", 9, SCORES),
            ("tokenizer.ggml.add_bos_token", 7, b"\x01"),
            (CHAT_TEMPLATE_KEY, 8, gguf_string(TEMPLATE)),
        ],
    )
    assert read_string_metadata(path, CHAT_TEMPLATE_KEY) == TEMPLATE
    assert read_string_metadata(path, "general.name") == "tiny"


def test_a_base_model_has_none(tmp_path):
    path = tmp_path / "base.gguf"
    write_gguf(path, [("general.name", 8, gguf_string("t")), ("tokenizer.ggml.tokens", 9, TOKENS)])
    assert read_string_metadata(path, CHAT_TEMPLATE_KEY) is None


def test_a_file_that_is_not_gguf_is_rejected(tmp_path):
    path = tmp_path / "weights.bin"
    path.write_bytes(b"PK\x03\x04" + b"\0" * 64)
    with pytest.raises(GGUFFormatError, match="not a GGUF"):
        read_string_metadata(path, CHAT_TEMPLATE_KEY)


def test_the_llama_backend_picks_chat_form_from_the_template(tmp_path):
    pytest.importorskip("llama_cpp")
    from selfdebug.server.backends.llama import LlamaBackend

    path = tmp_path / "instruct.gguf"
    write_gguf(path, [(CHAT_TEMPLATE_KEY, 8, gguf_string("{{ messages }}"))])
    assert LlamaBackend(path, notice=None).prompt_form == "chat"
    assert LlamaBackend(path, prompt_form="completion", notice=None).prompt_form == "completion"


def test_a_truncated_header_is_a_format_error(tmp_path):
    whole = tmp_path / "whole.gguf"
    write_gguf(
        whole, [("tokenizer.ggml.tokens", 9, TOKENS), (CHAT_TEMPLATE_KEY, 8, gguf_string(TEMPLATE))]
    )
    data = whole.read_bytes()
    for size in (9, 40, len(data) - 5):  # inside the counts, the first key, the template itself
        cut = tmp_path / f"cut-{size}.gguf"
        cut.write_bytes(data[:size])
        with pytest.raises(GGUFFormatError, match="truncated or damaged"):
            read_string_metadata(cut, CHAT_TEMPLATE_KEY)
