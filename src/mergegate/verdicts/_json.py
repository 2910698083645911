"""Strict JSON reading, shared by the verdict trailer and every typed handoff.

`read_json` parses with three refusals that `json.loads` does not make: a key given twice in
one object (`{"verdict": "reject", "verdict": "approve"}` — which one did the author mean?),
the non-JSON constants `NaN`/`Infinity`, and a number that overflows to infinity (`1e999`),
which `json.loads` silently turns into `inf` and `json.dumps` then prints as `Infinity` —
not JSON. Nothing is ever repaired or completed.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["DuplicateKeyError", "NumberRangeError", "read_json"]


class DuplicateKeyError(ValueError):
    """An object gives the same key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f'the key "{key}" is given twice in one object')
        self.key = key


class NumberRangeError(ValueError):
    """A number is NaN/Infinity or too large for a finite double."""

    def __init__(self, literal: str) -> None:
        shown = literal if len(literal) <= 40 else literal[:39] + "…"
        super().__init__(f"the number {shown} is not a finite JSON number (it overflows)")
        self.literal = literal


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise NumberRangeError(literal)
    return value


def _no_constants(name: str) -> Any:
    raise NumberRangeError(name)


DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicates, parse_constant=_no_constants, parse_float=_finite
)
"""The one decoder: duplicate keys, NaN/Infinity and overflowing numbers are errors."""


def read_json(text: str) -> Any:
    """Parse `text` as one JSON value, strictly.

    Raises `DuplicateKeyError`, `NumberRangeError`, `json.JSONDecodeError` (all `ValueError`)
    or `RecursionError` for a value nested too deeply.
    """
    return DECODER.decode(text)
