"""Find a function with tree-sitter, insert print probes that write to a side channel, strip them.

Public API (all sources are bytes in the file's own encoding, offsets are bytes):
    locate_function, locate_at, list_functions, FunctionLocation, LspRange, LspPosition
    instrument_function, LEVELS      automatic probes (probes.py)
    validate_model_prints, PrintValidation   model-written prints (model_prints.py)
    strip, contains_probes, line_map          undo / detect / map lines (strip.py)
    runtime_dir                               folder of the standalone helper for PYTHONPATH
    InstrumentError, SourceSyntaxError, FunctionNotFound, AlreadyInstrumented
"""

from .errors import AlreadyInstrumented, FunctionNotFound, InstrumentError, SourceSyntaxError
from .helper import HELPER, runtime_dir
from .locate import (
    FunctionLocation,
    LspPosition,
    LspRange,
    list_functions,
    locate_at,
    locate_function,
)
from .model_prints import PrintValidation, validate_model_prints
from .probes import LEVELS, instrument_function
from .strip import contains_probes, line_map, strip

__all__ = [
    "HELPER",
    "LEVELS",
    "AlreadyInstrumented",
    "FunctionLocation",
    "FunctionNotFound",
    "InstrumentError",
    "LspPosition",
    "LspRange",
    "PrintValidation",
    "SourceSyntaxError",
    "contains_probes",
    "instrument_function",
    "line_map",
    "list_functions",
    "locate_at",
    "locate_function",
    "runtime_dir",
    "strip",
    "validate_model_prints",
]
