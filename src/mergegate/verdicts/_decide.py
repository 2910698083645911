"""The authority rules: which candidate verdict decides the document.

1. Empty or whitespace-only → `empty`.
2. A JSON trailer: with a `review_id`, only a trailer carrying that id counts (others are
   ignored with a warning) and a prose approval alone is refused; without one, a valid trailer
   counts when nothing live follows it. A truncated/invalid trailer → `malformed`.
3. Otherwise the *last* document-level candidate decides (multi-round documents); candidates
   scoped to a part (alternative, option, file …) never do.
4. A candidate written with look-alike or zero-width characters never approves; a qualified
   approval ("Yes, once …") is `fixes`; an approval next to a critical count > 0 is `fixes`.
5. Nothing found → `malformed`; keyword heuristics may add a warning, never a decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mergegate.decisions import Decision
from mergegate.errors import UsageError
from mergegate.verdicts._findings import findings_of
from mergegate.verdicts._grammar import DIALECTS, Candidate, critical_counts, find_candidates
from mergegate.verdicts._lines import Doc, structure
from mergegate.verdicts._model import Evidence, Finding, Severity, Verdict
from mergegate.verdicts._text import bound, has_lookalike
from mergegate.verdicts._trailer import Trailer, find_trailers

__all__ = ["extract_findings", "parse_verdict"]

_HINT_WORDS = ("approve", "lgtm", "ready to merge", "reject", "verdict", "pass", "fail", "merge")


@dataclass(slots=True)
class _Outcome:
    decision: Decision
    dialect: str | None = None
    index: int | None = None
    reasons: list[str] = field(default_factory=list)
    findings: tuple[Finding, ...] | None = None


def parse_verdict(
    text: str, *, dialect: str | None = None, review_id: str | None = None
) -> Verdict:
    """Turn reviewer output into a typed `Verdict`. Never raises on any text.

    `dialect` restricts detection to one registered grammar (see `DIALECTS`; an unknown name
    raises `UsageError`). `review_id` is the nonce mergegate put in the reviewer prompt: only a
    JSON trailer carrying it may approve. Fails closed: anything but an authoritative,
    unconditional approval is not `approve`.
    """
    if dialect is not None and dialect not in DIALECTS:
        raise UsageError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    if not isinstance(text, str) or not text.strip():
        return Verdict(decision=Decision.EMPTY, reasons=("no output at all",))
    bounded = bound(text)
    doc = structure(bounded.lines, bounded.first_line_number)
    warnings = list(bounded.warnings)
    outcome = _decide(doc, text, dialect, review_id, warnings)
    findings = outcome.findings if outcome.findings is not None else findings_of(doc)
    evidence = None
    if outcome.index is not None:
        line = doc.lines[outcome.index]
        evidence = Evidence.at(line.number, line.raw)
    return Verdict(
        decision=outcome.decision,
        dialect=outcome.dialect,
        evidence=evidence,
        reasons=tuple(outcome.reasons),
        findings=findings,
        warnings=tuple(dict.fromkeys(warnings)),
    )


def extract_findings(text: str) -> tuple[Finding, ...]:
    """Findings from reviewer prose (severity sections and tagged items); never raises."""
    if not isinstance(text, str) or not text.strip():
        return ()
    bounded = bound(text)
    return findings_of(structure(bounded.lines, bounded.first_line_number))


def _decide(
    doc: Doc, text: str, dialect: str | None, review_id: str | None, warnings: list[str]
) -> _Outcome:
    candidates = [c for c in find_candidates(doc) if dialect in (None, c.dialect)]
    trailers = find_trailers(doc, text) if dialect in (None, "json") else []
    prose = _prose(doc, candidates, warnings)
    if review_id is not None:
        return _with_review_id(doc, trailers, prose, review_id, warnings)
    broken = [t for t in trailers if t.decision is None]
    last_index = prose.index if prose.index is not None else -1
    if broken and broken[-1].end_index > last_index:
        return _Outcome(Decision.MALFORMED, "json", broken[-1].index, [str(broken[-1].problem)])
    final = [t for t in trailers if t.decision is not None and _nothing_live_after(doc, t)]
    if final:
        return _from_trailer(final[-1], prose, warnings)
    for trailer in trailers:
        if trailer.decision is not None:
            warnings.append(
                f"a JSON verdict at line {doc.lines[trailer.index].number} is followed by more "
                "text, so it is not the trailer; ignored"
            )
    return prose


def _prose(doc: Doc, candidates: list[Candidate], warnings: list[str]) -> _Outcome:
    ruling = [c for c in candidates if not c.local]
    local = [c for c in candidates if c.local]
    if local:
        warnings.append(
            f"{len(local)} verdict(s) scoped to a part of the document (alternative, option, "
            "file …) were not taken as the document's verdict"
        )
    if not ruling:
        return _nothing_found(doc, bool(local), warnings)
    last = ruling[-1]
    outcome = _Outcome(last.decision, last.dialect, last.index, [_where(doc, last)])
    if len(ruling) > 1:
        outcome.reasons.append(
            f"last of {len(ruling)} verdict statements; earlier ones do not decide"
        )
    _apply_lookalike(doc, ruling, outcome, warnings)
    _apply_critical_count(doc, outcome)
    return outcome


def _where(doc: Doc, cand: Candidate) -> str:
    return f"line {doc.lines[cand.index].number}: {cand.reason} → {cand.decision.value}"


def _apply_lookalike(
    doc: Doc, ruling: list[Candidate], outcome: _Outcome, warnings: list[str]
) -> None:
    for cand in ruling:
        if cand.lookalike:
            warnings.append(
                f"line {doc.lines[cand.index].number}: verdict words contain look-alike or "
                "zero-width characters; refused"
            )
    last = ruling[-1]
    if last.lookalike and outcome.decision is Decision.APPROVE:
        outcome.decision = Decision.MALFORMED
        outcome.reasons.append("the approving verdict uses look-alike/zero-width characters")


def _apply_critical_count(doc: Doc, outcome: _Outcome) -> None:
    if outcome.decision is not Decision.APPROVE or outcome.index is None:
        return
    lo, hi = _block_of(doc, outcome.index)
    for index, count in critical_counts(doc):
        in_block = lo <= index < hi or doc.lines[index].frontmatter
        if count > 0 and in_block:
            outcome.decision = Decision.FIXES
            outcome.reasons.append(
                f"line {doc.lines[index].number} reports {count} critical/blocking finding(s); "
                "an approval with critical findings is not an approval"
            )
            return


def _block_of(doc: Doc, index: int) -> tuple[int, int]:
    """The level-1/2 section holding `index` (the whole frontmatter for frontmatter lines)."""
    if doc.lines[index].frontmatter:
        return 0, doc.frontmatter_end + 1
    lo = index
    while lo > 0 and not (0 < doc.lines[lo].heading_level <= 2):
        lo -= 1
    hi = index + 1
    while hi < len(doc.lines) and not (0 < doc.lines[hi].heading_level <= 2):
        hi += 1
    return lo, hi


def _nothing_found(doc: Doc, had_local: bool, warnings: list[str]) -> _Outcome:
    reasons = ["no authoritative verdict found"]
    if had_local:
        reasons.append("only verdicts scoped to a part of the document were found")
    seen = sorted({w for line in doc.lines if line.live for w in _HINT_WORDS if w in line.low})
    if seen:
        warnings.append(
            "verdict-like words appear outside any recognized verdict statement ("
            + ", ".join(seen)
            + "); heuristics do not decide"
        )
    if any(line.live and has_lookalike(line.raw) for line in doc.lines):
        warnings.append("look-alike or zero-width characters appear in live text")
    return _Outcome(Decision.MALFORMED, reasons=reasons)


def _nothing_live_after(doc: Doc, trailer: Trailer) -> bool:
    return all(line.blank or not line.live for line in doc.lines[trailer.end_index :])


def _from_trailer(trailer: Trailer, prose: _Outcome, warnings: list[str]) -> _Outcome:
    assert trailer.decision is not None
    decision = trailer.decision
    reasons = [f"JSON trailer verdict → {decision.value}"]
    # Minor and architectural (advisory, seed 004) findings do not turn an approval into fixes.
    blocking = [f for f in trailer.findings if f.severity is not Severity.MINOR and not f.advisory]
    if decision is Decision.APPROVE and blocking:
        decision = Decision.FIXES
        reasons.append(f"the trailer approves but lists {len(blocking)} blocking finding(s)")
    if (
        decision is Decision.APPROVE
        and prose.index is not None
        and prose.decision is not Decision.APPROVE
    ):
        decision = Decision.MALFORMED
        reasons.append(f"the prose verdict disagrees ({prose.decision.value}); conflicting")
        warnings.append("JSON trailer and prose verdict conflict")
    return _Outcome(decision, "json", trailer.index, reasons, trailer.findings)


def _with_review_id(
    doc: Doc, trailers: list[Trailer], prose: _Outcome, review_id: str, warnings: list[str]
) -> _Outcome:
    mine = [t for t in trailers if t.review_id == review_id]
    for other in trailers:
        if other.decision is not None and other.review_id != review_id:
            warnings.append(
                f"line {doc.lines[other.index].number}: JSON trailer with another review_id "
                f"({str(other.review_id)[:40]!r}); ignored"
            )
    if mine and mine[-1].decision is None:
        return _Outcome(Decision.MALFORMED, "json", mine[-1].index, [str(mine[-1].problem)])
    if mine:
        return _from_trailer(mine[-1], prose, warnings)
    broken = [t for t in trailers if t.decision is None]
    if broken:
        return _Outcome(Decision.MALFORMED, "json", broken[-1].index, [str(broken[-1].problem)])
    if prose.decision is Decision.APPROVE or not prose.decision.is_verdict:
        return _Outcome(
            Decision.MALFORMED,
            reasons=[
                f"no JSON trailer carries review_id {review_id!r}; a prose approval alone is "
                "not accepted when a review_id is expected",
                *prose.reasons,
            ],
        )
    prose.reasons.append(f"no JSON trailer carries review_id {review_id!r}; the prose no stands")
    return prose
