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

from typing import TYPE_CHECKING

from mergegate.lazy_exports import LazyExports
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
    from mergegate.verdicts._scan import MAX_CANDIDATES, ScanResult, Span, scan_objects

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
    # the linear JSON object scanner: handoff extraction reads agents' JSON with it too
    "mergegate.verdicts._scan": ("MAX_CANDIDATES", "ScanResult", "Span", "scan_objects"),
}
_EXPORTS = LazyExports(
    globals(),
    _HOME,
    {"TRAILER_VERDICTS": ("mergegate.verdicts._contract", "VERDICT_DECISIONS")},
)

__all__ = [
    "DIALECTS",
    "MAX_CANDIDATES",
    "TRAILER_VERDICTS",
    "DuplicateKeyError",
    "Evidence",
    "Finding",
    "MalformedObjectError",
    "MalformedReason",
    "NumberRangeError",
    "ObjectDecision",
    "ReviewVerdict",
    "ScanResult",
    "Severity",
    "Span",
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
    "scan_objects",
    "trailer_example",
    "verdict_object_example",
    "verdict_object_schema",
]


__getattr__ = _EXPORTS.attribute
__dir__ = _EXPORTS.names
