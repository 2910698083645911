"""The verdict gate: turn reviewer output into a typed, authoritative decision.

Pure functions over text (layer L1): no I/O. Only `Decision.APPROVE` proceeds, and only an
authoritative, unconditional approval found by these grammars becomes one. See
`docs/verdicts.md` for the dialects and authority rules.

Reviews mergegate prompts answer with the verdict object (`VerdictObject`, read with
`read_verdict_object`); `approves` is the one approval rule for them (`_object`).

The verdict trailer contract (`ReviewVerdict`, strict, read with `read_json`) is defined here
once; the `review-verdict` handoff schema, the local model's grammar and the reviewer
templates are derived from it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mergegate.verdicts._decide import extract_findings, parse_verdict
from mergegate.verdicts._grammar import DIALECTS
from mergegate.verdicts._json import DuplicateKeyError, NumberRangeError, read_json
from mergegate.verdicts._model import Evidence, Finding, Severity, Verdict

if TYPE_CHECKING:
    from mergegate.verdicts._contract import (
        VERDICT_DECISIONS as TRAILER_VERDICTS,
    )
    from mergegate.verdicts._contract import (
        ReviewVerdict,
        TrailerFinding,
        trailer_example,
    )
    from mergegate.verdicts._object import (
        MalformedObjectError,
        MalformedReason,
        ObjectDecision,
        VerdictFinding,
        VerdictObject,
        VerdictRequest,
        approves,
        decide_object,
        read_verdict_object,
        verdict_object_example,
        verdict_object_schema,
    )

# The trailer contract and the verdict object are imported when first used (module
# `__getattr__`): `mergegate parse` of prose needs neither, and it starts on every call
# (bench/bench_startup.py).
_HOME: dict[str, tuple[str, ...]] = {
    "mergegate.verdicts._contract": ("ReviewVerdict", "TrailerFinding", "trailer_example"),
    "mergegate.verdicts._object": (
        "MalformedObjectError",
        "MalformedReason",
        "ObjectDecision",
        "VerdictFinding",
        "VerdictObject",
        "VerdictRequest",
        "approves",
        "decide_object",
        "read_verdict_object",
        "verdict_object_example",
        "verdict_object_schema",
    ),
}
_WHERE = {name: (module, name) for module, names in _HOME.items() for name in names}
_WHERE["TRAILER_VERDICTS"] = ("mergegate.verdicts._contract", "VERDICT_DECISIONS")

__all__ = [
    "DIALECTS",
    "TRAILER_VERDICTS",
    "DuplicateKeyError",
    "Evidence",
    "Finding",
    "MalformedObjectError",
    "MalformedReason",
    "NumberRangeError",
    "ObjectDecision",
    "ReviewVerdict",
    "Severity",
    "TrailerFinding",
    "Verdict",
    "VerdictFinding",
    "VerdictObject",
    "VerdictRequest",
    "approves",
    "decide_object",
    "extract_findings",
    "parse_verdict",
    "read_json",
    "read_verdict_object",
    "trailer_example",
    "verdict_object_example",
    "verdict_object_schema",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'mergegate.verdicts' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
