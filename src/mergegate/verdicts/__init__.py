"""The verdict gate: turn reviewer output into a typed, authoritative decision.

Pure functions over text (layer L1): no I/O. Only `Decision.APPROVE` proceeds, and only an
authoritative, unconditional approval found by these grammars becomes one. See
`docs/verdicts.md` for the dialects and authority rules.
"""

from __future__ import annotations

from mergegate.verdicts._decide import extract_findings, parse_verdict
from mergegate.verdicts._grammar import DIALECTS
from mergegate.verdicts._model import Evidence, Finding, Severity, Verdict

__all__ = [
    "DIALECTS",
    "Evidence",
    "Finding",
    "Severity",
    "Verdict",
    "extract_findings",
    "parse_verdict",
]
