"""The approval rule: approval by allow-list, never by the absence of a known bad pattern.

A document approves only when every one of these holds (`docs/verdicts.md` restates them):

(a) authoritative verdict sites are found, and every one of them in the deciding round
    approves — parts of one review do not outvote each other, any live no is a no. Earlier
    rounds of a multi-round document ("## Round 2", "Re-review", "Update" …) are superseded;
    verdicts about alternatives, options or findings are not the document's; a part's
    approval ("Security: PASS") is never enough on its own;
(b) each site's answer is an affirmative token from the closed vocabulary, followed only by
    decoration, a closed-list non-blocking extra or a reason that passes the condition check
    (`_answer`);
(c) no live text after the first approving site withdraws, contradicts or conditions it, and
    no blocking content exists in the deciding round (`_signals`, `_blocking`);
(d) every JSON verdict in live text reads strictly (`_jsonverdict`), a trailer agrees with
    the prose and lists no blocking finding; with a `review_id`, a trailer carrying that id
    is required;
(e) the whole document is accounted for (`_accounting`): no visible line that can carry a
    decision stands where no reader looked (above a verdict outside any section, a footnote,
    a cell beside the verdict, text under an instruction-like heading that says no).

And the input was read whole: an input cut to the window, a line cut to its cap, a verdict
written with look-alike characters or U+FFFD never approves. Anything else is not `approve`:
the strongest no among the sites names the decision (`reject` > `fixes` > `malformed`);
nothing found is `malformed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mergegate.decisions import Decision
from mergegate.errors import UsageError
from mergegate.verdicts._accounting import unaccounted
from mergegate.verdicts._after import after_approval
from mergegate.verdicts._dated import later_dated_headings
from mergegate.verdicts._deciding_prose import refusal_in_deciding_section
from mergegate.verdicts._echoed import as_echoed_review
from mergegate.verdicts._field_sections import prose_in_field_section
from mergegate.verdicts._findings import findings_of
from mergegate.verdicts._frontmatter import read_verdict_frontmatter
from mergegate.verdicts._grammar import DIALECTS, depth_of, find_sites, unread_fields
from mergegate.verdicts._jsonverdict import JsonVerdict, find_json_verdicts
from mergegate.verdicts._lines import Doc, structure
from mergegate.verdicts._model import Evidence, Finding, Severity, Verdict
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._refusals import Facts, Refusal, first_refusal
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates import Recognised, mask, recognise
from mergegate.verdicts._templates.sdd_stages import free_note_in
from mergegate.verdicts._templates.superpowers import free_section_in
from mergegate.verdicts._text import bound, has_lookalike, skeleton
from mergegate.verdicts._unweighed import unweighed
from mergegate.verdicts._vocab import LabelKind

__all__ = ["extract_findings", "parse_verdict"]

_A, _F, _R, _M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED
_HINT_RE = compile_lazily(r"approve|lgtm|ready to merge|reject|verdict|pass|fail|merge")
_STRENGTH = {_R: 3, _F: 2, _M: 1, _A: 0}
# No review writes this many verdict statements in one round (the most in 600 real and
# hostile documents is 20). Past it an approval is refused before its per-statement reading,
# which would cost seconds per MB of such text (`bench_verdicts.py`, 'gate blocks').
_MOST_APPROVING_SITES = 256


@dataclass(slots=True)
class _Outcome:
    decision: Decision
    dialect: str | None = None
    index: int | None = None
    reasons: list[str] = field(default_factory=list)
    findings: tuple[Finding, ...] | None = None
    unweighed: tuple[Decision, int, str] | None = None
    """What an approval has not weighed (`_unweighed`), applied once the template settled."""


def parse_verdict(
    text: str, *, dialect: str | None = None, review_id: str | None = None, strict: bool = False
) -> Verdict:
    """Turn reviewer output into a typed `Verdict`. Never raises on any text.

    `dialect` restricts detection to one registered grammar (see `DIALECTS`; an unknown name
    raises `UsageError`). `review_id` is the nonce mergegate put in the reviewer prompt: only a
    JSON trailer carrying it may approve (an empty one raises `UsageError`). Fails closed:
    anything but an authoritative, unconditional approval is not `approve`. `strict` also
    requires the prose after an approving verdict to appraise the change (`_appraisal`):
    a plain statement there makes the document `malformed` — the reading for a caller that
    can ask the reviewer to restate (the Claude Code hook).
    """
    if dialect is not None and dialect not in DIALECTS:
        raise UsageError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    if review_id is not None and not review_id.strip():
        raise UsageError("review_id must not be empty: give the nonce the reviewer was asked for")
    if not isinstance(text, str) or not text.strip():
        return Verdict(decision=Decision.EMPTY, reasons=("no output at all",))
    verdict = _parse(text, dialect, review_id, strict)
    if not verdict.approved:
        return verdict
    return _as_skeleton(text, verdict, dialect, review_id, strict)


def _as_skeleton(
    text: str, verdict: Verdict, dialect: str | None, review_id: str | None, strict: bool
) -> Verdict:
    """The second reading of an approval: every word read as the Latin letters it looks like
    (`_text.skeleton`: Greek ΝΟΤ, 🅽🅾🆃, ɴᴏᴛ are 'NOT'). The approval stands only if that
    reading approves too; read also with combining marks dropped (DÓ NÓT MÉRGE), it may not
    say no — a French 'approuvé' without its accent is no verdict, which is no objection."""
    read = text
    for marks in (False, True):
        folded = skeleton(read, marks=marks)
        if folded == read:
            continue
        second = _parse(folded, dialect, review_id, strict)
        objects = not second.approved if not marks else second.decision in _NO
        if objects:
            return _refused_as_skeleton(text, verdict, second)
        read = folded
    return verdict


_NO = (Decision.FIXES, Decision.REJECT)


def _refused_as_skeleton(text: str, verdict: Verdict, second: Verdict) -> Verdict:
    evidence = second.evidence
    if evidence is not None:  # show the line as written, not as folded
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if 0 < evidence.line <= len(lines):
            evidence = Evidence.at(evidence.line, lines[evidence.line - 1])
    where = f"line {evidence.line}: " if evidence is not None else ""
    why = second.reasons[0] if second.reasons else second.decision.value
    return Verdict(
        decision=Decision.MALFORMED,
        dialect=verdict.dialect,
        evidence=evidence,
        reasons=(
            f"{where}read with every word as the Latin letters it looks like (look-alike "
            f"letters, letter symbols, accents dropped), the document does not approve: {why}",
            *verdict.reasons,
        ),
        findings=verdict.findings,
        warnings=verdict.warnings,
    )


def _parse(text: str, dialect: str | None, review_id: str | None, strict: bool) -> Verdict:
    bounded = bound(text)
    doc = structure(bounded.lines, bounded.first_line_number, full=bounded.full, cut=bounded.cut)
    warnings = list(bounded.warnings)
    echoed = as_echoed_review(doc, bounded)
    if echoed is not None:
        doc = echoed
        warnings.append(
            f"line {doc.lines[_first_body_line(doc)].number}: a heading that looks like a "
            "template holds a filled-in review; read as the review"
        )
    template = recognise(doc)
    if template is not None:
        doc = mask(doc, template.accounted)
    facts = _read(doc, dialect, review_id, warnings, template)
    outcome = _decide(facts, review_id, strict=strict)
    findings = outcome.findings if outcome.findings is not None else findings_of(doc)
    if template is not None:
        findings = _as_template(outcome, template, doc, findings)
    # A document its recogniser reads whole (a BMAD gate file) holds no unweighed prose.
    whole = template is not None and template.whole
    if outcome.decision is _A and outcome.unweighed is not None and not whole:
        outcome.decision, outcome.index, why = outcome.unweighed
        outcome.reasons.insert(0, why)
    unread = _unread_sibling(facts) if outcome.decision is _A and not whole else None
    if unread is not None:
        outcome.decision, outcome.index = Decision.MALFORMED, unread[0]
        outcome.reasons.insert(0, unread[1])
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


def _unread_sibling(facts: Facts) -> tuple[int, str] | None:
    """The first instance of an approving field whose value the reader cannot read.

    A report that writes its status per stage ('**状态**: 通过' three times, '**状态**: 失败'
    twice) or in its frontmatter and its body ('status: partial' above '**Status:** PASS')
    approves only if every instance of that field does: an approving instance read while
    another, at the same heading depth, holds a word outside the vocabulary is an approval
    read from part of the field (the allow-list: a value not understood is not a yes)."""
    depths: dict[str, set[int]] = {}
    for site in facts.sites:
        if site.decision is not _A or not site.label:
            continue
        levels = depths.setdefault(site.label, set())
        if not site.frontmatter:  # a frontmatter key is matched by label alone
            levels.add(depth_of(facts.doc.lines[site.index]))
    if not depths:
        return None
    wanted = {label: frozenset(levels) for label, levels in depths.items()}
    front = (u for u in facts.front.unread if u[1] in wanted)
    first = min([*front, *unread_fields(facts.doc, wanted)], default=None)
    if first is None:
        return None
    index, label, value = first
    return index, (
        f"line {facts.doc.lines[index].number}: '{label}' says '{value}', a value that is no "
        f"verdict, where another '{label}' field approves: the field is not understood whole"
    )


def _first_body_line(doc: Doc) -> int:
    body = range(max(doc.frontmatter_end + 1, 0), len(doc.lines))
    return next((i for i in body if doc.lines[i].raw.strip()), 0)


def extract_findings(text: str) -> tuple[Finding, ...]:
    """Findings from reviewer prose (severity sections and tagged items); never raises."""
    if not isinstance(text, str) or not text.strip():
        return ()
    bounded = bound(text)
    return findings_of(structure(bounded.lines, bounded.first_line_number))


# --------------------------------------------------------------------------- reading


def _read(
    doc: Doc,
    dialect: str | None,
    review_id: str | None,
    warnings: list[str],
    template: Recognised | None = None,
) -> Facts:
    # A GSD report's status keys are its verdict: an unknown value there is malformed.
    front = read_verdict_frontmatter(
        doc, status_is_verdict=template is not None and template.name == "gsd"
    )
    # JSON a recogniser reads whole as its own record (a platform's JSON) is no JSON verdict.
    record = template.accounted if template is not None and template.whole else frozenset()
    jsons = [
        j
        for j in find_json_verdicts(doc)
        if not record.issuperset(range(j.index, min(j.end_index, len(doc.lines))))
    ]
    # Lines inside a JSON verdict are read as JSON, never as prose 'label: value' lines.
    covered = {i for j in jsons for i in range(j.index, j.end_index)}
    sites = [*front.sites, *(s for s in find_sites(doc) if s.index not in covered)]
    if template is not None:
        sites = _with_template(sites, template, covered, warnings)
    if dialect is not None and (template is None or template.name != dialect):
        # Restricted to a template's dialect, a document it claims is read whole: the generic
        # lines it leaves (a Megazord block's status) are that template's reading.
        sites = [s for s in sites if s.dialect == dialect]
    if dialect not in (None, "json"):
        jsons = []
    json_sites, trailers, broken = _json_sites(doc, jsons, review_id, warnings)
    sites = sorted([*sites, *json_sites], key=lambda s: (not s.frontmatter, s.index))
    local = [s for s in sites if s.local]
    if local:
        warnings.append(
            f"{len(local)} verdict(s) scoped to something other than the change (an "
            "alternative, an option, a finding …) were not taken as the document's verdict"
        )
    for site in sites:
        if site.lookalike:
            warnings.append(
                f"line {doc.lines[site.index].number}: verdict words contain look-alike, "
                "zero-width or damaged (U+FFFD) characters; refused"
            )
    ruling = [s for s in sites if not s.local]
    return Facts(doc, front, ruling, broken, trailers, warnings, frozenset(covered))


def _with_template(
    sites: list[Site], template: Recognised, covered: set[int], warnings: list[str]
) -> list[Site]:
    """The generic sites with the template's fields: a line the template read as a field is
    its reading alone, and a verdict line its record shows to be older is not read."""
    own = {s.index for s in template.sites}
    older = [s for s in sites if s.index in template.superseded and s.index not in own]
    if older:
        warnings.append(
            f"{len(older)} verdict line(s) of an older record were superseded by the "
            f"{template.name} record, which was written later"
        )
    kept = [s for s in sites if s.index not in own and s.index not in template.superseded]
    kept.extend(s for s in template.sites if s.index not in covered)
    return kept


def _json_sites(
    doc: Doc, jsons: list[JsonVerdict], review_id: str | None, warnings: list[str]
) -> tuple[list[Site], dict[int, JsonVerdict], list[JsonVerdict]]:
    sites: list[Site] = []
    trailers: dict[int, JsonVerdict] = {}
    broken = [j for j in jsons if j.decision is None]
    last_live = max(
        (i for i, line in enumerate(doc.lines) if line.live and not line.blank), default=-1
    )
    for found in jsons:
        if found.decision is None:
            continue
        ignored = _ignored_json(doc, found, review_id, last_live)
        if ignored is not None:
            warnings.append(ignored)
            # It cannot approve, but what it blocks on is live blocking content.
            blocking = _json_blocking(found) if found.decision is _A else None
            if blocking is not None:
                sites.append(_blocking_json_site(found, blocking))
            continue
        trailers[found.index] = found
        sites.append(
            Site(
                index=found.index,
                decision=found.decision,
                dialect="json",
                reason=found.reason,
                kind=LabelKind.VERDICT,
            )
        )
    return sites, trailers, broken


def _ignored_json(
    doc: Doc, found: JsonVerdict, review_id: str | None, last_live: int
) -> str | None:
    """Why a JSON verdict is not taken as one (a warning), or None."""
    number = doc.lines[min(found.index, len(doc.lines) - 1)].number
    if review_id is not None and found.trailer and found.review_id != review_id:
        return (
            f"line {number}: JSON trailer with another review_id "
            f"({str(found.review_id)[:40]!r}); ignored"
        )
    if found.decision is _A and found.inline:
        return f"line {number}: a JSON approval written into prose is not a trailer; ignored"
    if (
        review_id is None
        and found.trailer
        and found.decision is _A
        and last_live >= found.end_index
    ):
        return (
            f"a JSON verdict at line {number} is followed by more text, so it is not the "
            "trailer; ignored"
        )
    return None


def _json_blocking(found: JsonVerdict) -> str | None:
    """Blocking content an approving JSON verdict reports: a blocking key, or a critical or
    important finding that is not architectural advice."""
    if found.blocking is not None:
        return found.blocking
    blocking = [f for f in found.findings if f.severity is not Severity.MINOR and not f.advisory]
    return f"{len(blocking)} blocking finding(s)" if blocking else None


def _blocking_json_site(found: JsonVerdict, blocking: str) -> Site:
    return Site(
        index=found.index,
        decision=_F,
        dialect="json",
        reason=f"a JSON approval that is not the verdict reports blocking content ({blocking})",
        kind=LabelKind.VERDICT,
    )


def _as_template(
    outcome: _Outcome, template: Recognised, doc: Doc, findings: tuple[Finding, ...]
) -> tuple[Finding, ...]:
    """Settle the outcome of a recognised template: its name is the dialect, its blocking
    content (→ fixes) or its unanswered verdict field (→ malformed) keeps an approval from
    approving, its findings come first. Returns the findings."""
    outcome.dialect = template.name
    if template.blocking is not None and outcome.decision is _A:
        index, why = template.blocking
        outcome.decision = _F
        outcome.index = index
        outcome.reasons.insert(
            0, f"blocking content at line {doc.lines[index].number}: {why}; not an approval"
        )
    elif template.unanswered is not None and outcome.decision is _A:
        index, why = template.unanswered
        outcome.decision = _M
        outcome.index = index
        outcome.reasons.insert(0, f"line {doc.lines[index].number}: {why}; not an approval")
    if template.findings is None:
        return findings
    ids = {f.id for f in template.findings}
    return (*template.findings, *(f for f in findings if f.id not in ids))


# --------------------------------------------------------------------------- deciding


def _decide(facts: Facts, review_id: str | None, *, strict: bool) -> _Outcome:
    doc = facts.doc
    if not facts.sites:
        if facts.broken:
            return _Outcome(_M, "json", facts.broken[-1].index, [str(facts.broken[-1].problem)])
        return _nothing_found(doc, facts.warnings)
    start = _scope_start(doc, facts.sites)
    in_scope = [s for s in facts.sites if s.frontmatter or s.index >= start]
    if len(in_scope) < len(facts.sites):
        facts.warnings.append(
            f"{len(facts.sites) - len(in_scope)} verdict(s) of earlier rounds were superseded "
            f"by the round starting at line {doc.lines[start].number}"
        )
    no = [s for s in in_scope if s.decision is not _A]
    if no:
        return _refusal(facts, in_scope, no, review_id)
    if len(in_scope) > _MOST_APPROVING_SITES:
        extra = in_scope[_MOST_APPROVING_SITES]
        why = (
            f"{len(in_scope)} approving verdict statements in one round, more than "
            f"{_MOST_APPROVING_SITES}: no review writes so many; not read as an approval"
        )
        return _Outcome(_M, extra.dialect, extra.index, [why])
    later = _dated_after(facts, in_scope)
    if later is not None:
        why = (
            f"line {doc.lines[later].number} is dated after the frontmatter's verdict and no "
            "verdict follows it: the frontmatter is not the newest record; not an approval"
        )
        return _Outcome(_M, in_scope[-1].dialect, later, [why])
    return _approval(facts, in_scope, start, review_id, strict=strict)


def _dated_after(facts: Facts, in_scope: list[Site]) -> int | None:
    """A body heading dated after the frontmatter that holds the approval, below every
    verdict of the document (`_dated`): a later record with no verdict of its own."""
    if not any(s.frontmatter for s in in_scope):
        return None
    last = max(s.index for s in facts.sites)
    return next((i for i in later_dated_headings(facts.doc) if i > last), None)


def _round_after(facts: Facts) -> Refusal | None:
    """A round heading below every verdict in the body: a later review whose findings
    no verdict weighed (README: the last review decides, and this one has no yes). Read
    after the other refusals, so a no written inside that round still names the decision."""
    if any(s.frontmatter for s in facts.sites):
        # The frontmatter is the file's record, its rounds included; a body record shown
        # to be newer is `_dated`'s to read.
        return None
    last = max(s.index for s in facts.sites)
    # A line a recogniser accounts for (a gate file's '#' comment) is no heading of a round.
    lines = facts.doc.lines
    newer = next((r for r in facts.doc.rounds if r > last and lines[r].live), None)
    if newer is None:
        return None
    why = (
        f"line {facts.doc.lines[newer].number} opens a later round with no verdict of its "
        "own: the newest round decides and says no yes; not an approval"
    )
    return _M, newer, why


def _scope_start(doc: Doc, sites: list[Site]) -> int:
    """The first line of the deciding round: the last round heading before the last site."""
    body = [s.index for s in sites if not s.frontmatter]
    if not body:
        return 0
    last = max(body)
    return max((r for r in doc.rounds if r <= last), default=0)


def _refusal(facts: Facts, in_scope: list[Site], no: list[Site], review_id: str | None) -> _Outcome:
    # The document's own statements name the decision; a part's no only keeps it from
    # approving (README: local verdicts are not the document's verdict).
    named = [s for s in no if not s.part] or no
    strongest = max(_STRENGTH[s.decision] for s in named)
    deciding = [s for s in named if _STRENGTH[s.decision] == strongest][-1]
    outcome = _Outcome(
        deciding.decision, deciding.dialect, deciding.index, [_where(facts, deciding)]
    )
    approving_trailer = [s for s in in_scope if s.dialect == "json" and s.decision is _A]
    if approving_trailer and any(s.dialect != "json" for s in no):
        outcome.decision = _M
        outcome.reasons.append("the JSON trailer approves but the prose says no; conflicting")
        facts.warnings.append("JSON trailer and prose verdict conflict")
    elif len(in_scope) > 1:
        outcome.reasons.append(
            f"{len(no)} of {len(in_scope)} verdict statements do not approve; parts of one "
            "review do not outvote each other"
        )
    # Findings from a valid trailer take precedence over findings read from prose.
    trailer = next(
        (facts.trailers[s.index] for s in reversed(in_scope) if s.index in facts.trailers), None
    )
    if trailer is not None and trailer.trailer:
        outcome.findings = trailer.findings
    if review_id is not None and deciding.dialect != "json":
        outcome.reasons.append(
            f"no JSON trailer carrying review_id {review_id!r} approves; the prose no stands"
        )
    return outcome


def _approval(
    facts: Facts, in_scope: list[Site], start: int, review_id: str | None, *, strict: bool
) -> _Outcome:
    last = in_scope[-1]
    outcome = _Outcome(_A, last.dialect, last.index, [_where(facts, s) for s in in_scope[-3:]])
    trailer = next(
        (facts.trailers[s.index] for s in reversed(in_scope) if s.index in facts.trailers), None
    )
    if trailer is not None:
        outcome.findings = trailer.findings
    refusal = (
        first_refusal(facts, in_scope, start, review_id, trailer)
        or unaccounted(facts.doc, facts.sites, facts.covered, start)
        or _round_after(facts)
        or (prose_in_field_section(facts.doc, start, facts.covered) if strict else None)
        or (free_note_in(facts.doc) if strict else None)
        or (free_section_in(facts.doc) if strict else None)
    )
    if refusal is None:
        # Settled after a recogniser's own reading: its blocking content names a 'fixes'.
        outcome.unweighed = unweighed(facts.doc, in_scope, start, facts.covered) or (
            after_approval(facts.doc, in_scope, start, facts.covered, appraise=strict)
        )
    if refusal is not None:
        decision, index, why = refusal
        outcome.decision = decision
        outcome.reasons.insert(0, why)
        if index is not None:
            outcome.index = index
    return outcome


def _where(facts: Facts, site: Site) -> str:
    return f"line {facts.doc.lines[site.index].number}: {site.reason} → {site.decision.value}"


def _nothing_found(doc: Doc, warnings: list[str]) -> _Outcome:
    # No verdict statement: a deciding section that refuses in prose names that refusal
    # (`_deciding_prose`: fixes or reject only, never an approval).
    refusal = refusal_in_deciding_section(doc)
    if refusal is not None:
        decision, index, why = refusal
        return _Outcome(decision, None, index, [why, "no verdict statement found"])
    reasons = ["no authoritative verdict found"]
    live = "\n".join(line.low for line in doc.lines if line.live)  # one search, not one a line
    seen = sorted({m.group(0) for m in _HINT_RE.finditer(live)})
    if seen:
        warnings.append(
            "verdict-like words appear outside any recognized verdict statement ("
            + ", ".join(seen)
            + "); heuristics do not decide"
        )
    if any(line.live and has_lookalike(line.raw) for line in doc.lines):
        warnings.append("look-alike or zero-width characters appear in live text")
    return _Outcome(_M, reasons=reasons)
