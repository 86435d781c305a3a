"""Reads one metadata string (the chat template) from a GGUF header without loading the model.

Why: whether a model is a base model (completion prompts) or an instruct model (chat prompts)
must be known when the backend is made, long before the first call loads the weights, and loading
a model just to look at its metadata would cost seconds and memory. Format:
https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (little-endian key/value pairs).
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

CHAT_TEMPLATE_KEY = "tokenizer.chat_template"

# value type -> fixed size in bytes (8 = string and 9 = array are variable)
_FIXED_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


class GGUFFormatError(ValueError):
    pass


def read_string_metadata(path: str | Path, key: str) -> str | None:
    """The string value of `key` in the GGUF at `path`, or None when absent."""
    name = Path(path).name
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:4] != b"GGUF":
            raise GGUFFormatError(f"{name} is not a GGUF file")
        try:
            return _find_string(data, key, name)
        except struct.error as error:  # a size, count or length that points past the end
            raise GGUFFormatError(f"{name} is truncated or damaged: {error}") from None


def _find_string(data: mmap.mmap, key: str, name: str) -> str | None:
    version, _tensors, kv_count = struct.unpack_from("<IQQ", data, 4)
    if version < 2:
        raise GGUFFormatError(f"{name}: GGUF version {version} is too old")
    offset = 24
    for _ in range(kv_count):
        found, offset = _read_string(data, offset)
        (value_type,) = struct.unpack_from("<I", data, offset)
        offset += 4
        if found == key and value_type == _STRING:
            return _read_string(data, offset)[0]
        offset = _skip_value(data, offset, value_type)
    return None


def _read_string(data: mmap.mmap, offset: int) -> tuple[str, int]:
    (length,) = struct.unpack_from("<Q", data, offset)
    start = offset + 8
    if start + length > len(data):
        raise struct.error(f"a string of {length} bytes at offset {offset} ends past the file")
    return data[start : start + length].decode("utf-8", errors="replace"), start + length


def _skip_value(data: mmap.mmap, offset: int, value_type: int) -> int:
    if value_type in _FIXED_SIZES:
        return offset + _FIXED_SIZES[value_type]
    if value_type == _STRING:
        (length,) = struct.unpack_from("<Q", data, offset)
        return offset + 8 + length
    if value_type == _ARRAY:
        item_type, count = struct.unpack_from("<IQ", data, offset)
        offset += 12
        if item_type in _FIXED_SIZES:
            return offset + count * _FIXED_SIZES[item_type]
        for _ in range(count):
            offset = _skip_value(data, offset, item_type)
        return offset
    raise GGUFFormatError(f"unknown GGUF value type {value_type}")
