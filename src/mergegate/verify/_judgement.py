"""The verifier agent's answer, one structured judgement per criterion, and the quote check.

The answer is exactly one JSON object:

```json
{"verification_id": "mgv-…",
 "criteria": [{"id": "sc-1", "result": "pass|fail|uncertain",
               "evidence": [{"file": "src/a.ts", "line": 12, "quote": "export function f("}],
               "reason": "…", "question": null}]}
```

A `pass` or `fail` counts only with evidence mergegate can find: every citation names a file
inside the tree, and its quote (whitespace aside) is on the cited line or within
`QUOTE_WINDOW` lines of it. A judgement whose citations are missing, outside the tree, or
not really there becomes `uncertain`, with what did not match, and goes to a person. The
words of a criterion are never evidence; neither is a file the agent made up.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.errors import UsageError
from mergegate.handoff import ModelSchema, check_judged_criteria
from mergegate.verify._paths import repo_path

__all__ = [
    "Citation",
    "CriterionJudgement",
    "VerifierAnswer",
    "answer_schema",
    "checked",
]

QUOTE_WINDOW = 3
_MAX_FILE = 2 << 20


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Citation(_Strict):
    """A place in the tree and the text found there."""

    file: str = Field(min_length=1, max_length=500)
    line: int = Field(ge=1, le=10_000_000)
    quote: str = Field(min_length=1, max_length=500)
    """The text on that line (part of it is enough), copied exactly."""


class CriterionJudgement(_Strict):
    """The verifier's answer for one criterion."""

    id: str = Field(min_length=1, max_length=200)
    result: Literal["pass", "fail", "uncertain"]
    evidence: list[Citation] = Field(default_factory=list, max_length=8)
    reason: str = Field(default="", max_length=2000)
    question: str | None = Field(default=None, max_length=1000)
    """For `uncertain`: the one thing a person should check."""


class VerifierAnswer(_Strict):
    """The whole answer: the request's nonce and one judgement per criterion asked about."""

    verification_id: str = Field(min_length=1, max_length=200)
    criteria: list[CriterionJudgement] = Field(min_length=1, max_length=200)


def _check(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """The nonce matches; every criterion asked about is answered once, and no other."""
    return check_judged_criteria(value.verification_id, [j.id for j in value.criteria], context)


def answer_schema() -> ModelSchema:
    """The handoff schema the answer is extracted with (strict JSON: duplicate keys and
    truncation fail)."""
    return ModelSchema(
        "verifier-answer",
        VerifierAnswer,
        check=_check,
        description="mergegate verify: one judgement per criterion, evidence quoted",
    )


def _lines(root: Path, name: str) -> list[str] | None:
    try:
        path = repo_path(root, name, what="the verifier's citation")
    except UsageError:
        return None
    try:
        if not path.is_file() or path.stat().st_size > _MAX_FILE:
            return None
        return path.read_bytes().decode("utf-8", "replace").split("\n")
    except OSError:
        return None


def _squash(text: str) -> str:
    return " ".join(text.split())


def citation_problem(root: Path, citation: Citation) -> str | None:
    """Why `citation` is not really in the tree at `root`, or None when it is."""
    lines = _lines(root, citation.file)
    if lines is None:
        return f"{citation.file}: not a readable file in the tree"
    quote = _squash(citation.quote)
    if not quote:
        return f"{citation.file}:{citation.line}: an empty quote"
    low = max(0, citation.line - 1 - QUOTE_WINDOW)
    window = lines[low : citation.line + QUOTE_WINDOW]
    if quote in _squash("\n".join(window)):
        return None
    return f"{citation.file}:{citation.line}: the quoted text is not there"


def checked(root: Path, judgement: CriterionJudgement) -> tuple[str, str]:
    """The judgement's result after the quote check, and the evidence text to record.

    `pass`/`fail` need at least one citation, and every citation must be found; otherwise
    the result is `uncertain`.
    """
    cited = "; ".join(f"{c.file}:{c.line} {c.quote!r}" for c in judgement.evidence[:4])
    detail = f"{judgement.reason} [{cited}]" if cited else judgement.reason
    if judgement.result == "uncertain":
        return "uncertain", (judgement.question or detail or "the verifier could not decide")
    if not judgement.evidence:
        return "uncertain", f"the verifier said {judgement.result} without citing file:line"
    problems = [p for c in judgement.evidence if (p := citation_problem(root, c))]
    if problems:
        return "uncertain", (
            f"the verifier said {judgement.result}, but its evidence is not in the tree "
            f"({'; '.join(problems[:3])}): {detail}"
        )
    return judgement.result, detail
