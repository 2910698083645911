"""GSD's reports: the code reviewer's `*-REVIEW.md` and the verifier's `*-VERIFICATION.md`.

Both carry their verdict in YAML frontmatter. The fields this recogniser reads:

* `status:` — `clean | issues_found` (reviews), `passed | gaps_found | human_needed`
  (verifiers). `clean` and `passed` approve (`clean` only where finding counts confirm it, like
  any `clean`), the others ask for fixes (`human_needed` passes only once a person confirms).
  A comment after an approving value is visible to whoever reads the file and may qualify it
  (`status: passed  # pending`), so it makes the field malformed. Every top-level `status:`
  line is a field, so a key given twice cannot hide the first value.
* `gaps:`, `gaps_remaining:` (also under `re_verification:`) — an open gap (a non-empty list,
  mapping or text, however YAML spells it: a list at the key's own indentation, a quoted
  key, a flow mapping) is blocking content; so is a frontmatter YAML cannot read (fails
  closed).
* `human_verification:`, and a body `Human Verification Required` section — checks the
  verifier could not run. `human_needed` is the status that makes them conditions; under
  `passed` they are the template's notes for a person and do not block (the labelling rule:
  "`passed` with no open gaps = approve"). The section's lines are read like the rest of the
  body (an obligation told as prose is no reason, a no is a no) — except a check's own
  fields (`**Expected:** …`), where an obligation is the field's form (`_human_checks`) —
  and each frontmatter check like such a field (`_human_problem`).
* `updated:`, `resolutions:`, `human_uat_*` — the frontmatter was written after the body, so
  a body `**Status:**` line that disagrees with it is an older record: superseded, not read
  as a verdict (the labelling rule of the shared corpus), and the human checks the body lists
  are the ones the newer record has settled — unless a body heading is dated after the
  frontmatter's date (`_dated`: `## Re-verification (2026-02-10)` under `updated:
  2026-01-02`), which makes the body the newer record. Without these keys both stand and the
  non-passing one wins.
* The signature ('_Verified: …_', '_Verifier: Claude (gsd-verifier)_') closes the template:
  a visible line after the signer's line that is none of the signature's fields is outside
  every section, so the report is `malformed` (`_after_signature`). So is text set off
  between the signature's break and another break above it under no heading
  (`_between_breaks`): the template has one break, and every section opens with a heading.

The document is GSD's when a top-level `status:` holds one of those values, or the
frontmatter has one of GSD's verifier keys (`gaps`, `resolutions`, `human_uat_*`), so that an
open gap blocks whatever the status says. Finding counts (`findings: {critical: 1}`) are any
frontmatter's (`_frontmatter`), not only GSD's.
"""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts._answer import read_answer
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._dated import later_dated_headings
from mergegate.verdicts._lines import Doc, is_table_row
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._anti_patterns import anti_pattern_rows
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._checks import check_rows, states_problem
from mergegate.verdicts._templates._fields import KEY_LINE, load_yaml
from mergegate.verdicts._templates._gsd_inventory import (
    CLOSURE_SECTIONS,
    CODE_REVIEWS,
    VERIFICATIONS,
    Role,
    section_roles,
    table_headers,
)
from mergegate.verdicts._templates._human_checks import check_problem, human_check_lines
from mergegate.verdicts._text import THEMATIC_BREAK, has_lookalike, norm
from mergegate.verdicts._vocab import LabelKind, clean_value

__all__ = ["NAME", "recognise"]

NAME = "gsd"

_STATUS = {
    "clean": Decision.APPROVE,
    "passed": Decision.APPROVE,
    "issues_found": Decision.FIXES,
    "gaps_found": Decision.FIXES,
    "human_needed": Decision.FIXES,
}
_BODY_STATUS = compile_lazily(r"(?:[-+] )?status ?: ?(.+)")
_GSD_KEYS = ("gaps", "resolutions", "human_uat")
_GAP_KEYS = ("gaps", "gaps_remaining")
_NEWER_KEYS = ("updated", "resolutions", "human_uat")
_EMPTY: tuple[object, ...] = (None, "", [], {}, "none", "[]", "~", "null")


def recognise(doc: Doc) -> Recognised | None:
    """The GSD fields of `doc`'s frontmatter, or None when it is not a GSD report."""
    if doc.frontmatter_end < 1:
        return None
    keys = _top_level_keys(doc)
    sites = tuple(_status_site(doc, index, value) for index, key, value in keys if key == "status")
    gsd_sites = tuple(s for s in sites if s is not None)
    data = _load(doc)
    names = {key for _, key, _ in keys}
    if isinstance(data, dict):
        names.update(str(key).lower() for key in data)
    if not gsd_sites and not any(name.startswith(_GSD_KEYS) for name in names):
        return None
    superseded: frozenset[int] = frozenset()
    # Newer unless the body dates a section after it (`## Re-verification (2026-02-10)`).
    newer = (
        any(name.startswith(_NEWER_KEYS) for name in names) or _dated_after_verification(data)
    ) and not later_dated_headings(doc)
    if gsd_sites and newer:
        superseded = _stale_body_status(doc, gsd_sites[-1].decision)
    if gsd_sites and gsd_sites[-1].decision is Decision.APPROVE and _closed_gaps(data):
        gsd_sites += _reverified_status(doc)
    checks = check_rows(doc, doc.frontmatter_end + 1)
    scan = anti_pattern_rows(doc)
    info = _info_findings(doc) | _footer(doc) | _closed_gap_rows(doc, data) | scan.weighed
    if gsd_sites and gsd_sites[-1].decision is Decision.APPROVE:
        info |= human_check_lines(doc)  # under a passing status, notes for a person
        info |= _describing_lines(doc, _roles(data, review=gsd_sites[-1].clean))
        info |= _reverification_field(doc, data)
    # A newer frontmatter settles what the body's older record left open.
    body = None if newer else checks.failing or _human_problem(data)
    if not newer and gsd_sites and gsd_sites[-1].decision is Decision.APPROVE:
        body = body or _pending_checks(data, keys) or _partial_counts(doc)
    return Recognised(
        name=NAME,
        sites=gsd_sites,
        accounted=checks.passed | info,
        blocking=_open_gaps(data, keys)
        or _regressions(data)
        or _partial_score(data, keys)
        or scan.blocker
        or body,
        superseded=superseded,
        unanswered=_after_signature(doc) or _between_breaks(doc),
    )


_VERIFICATION_ROLES = section_roles(VERIFICATIONS)
_REVIEW_ROLES = section_roles(CODE_REVIEWS)
_HEADERS = table_headers(VERIFICATIONS)
# A heading's numbering ('5.', 'Step 3:') before the title the template gives it.
_TITLE_NUMBER = compile_lazily(r"[ \t]*(?:(?:step[ \t]+)?\d{1,2}[.):]?[ \t]+)?")
# A line that states a verdict field ('**Status:** gaps_found', 'Verdict: REJECT'): a deciding
# field wherever it stands, so it is never accounted for as a describing section's text — the
# verdict readers weigh it beside the frontmatter's (a disagreement refuses).
_VERDICT_FIELD = compile_lazily(
    r"[-*+> \t]*[*_]{0,2}(?:status|verdict|decision|result|outcome|recommendation|conclusion)"
    r"[*_ \t]*:"
)
# A count line of a check section ('**Score:** 5/5 truths verified', '**Artifacts:** 4/4
# verified'): a whole count describes the table above it; a partial one is left to the readers.
_COUNT_LINE = compile_lazily(
    r"[ \t]*[*_]{0,2}[a-z][a-z -]{0,24}[*_ \t]*:[*_ \t]*(\d{1,4})[ \t]*/[ \t]*(\d{1,4})(?![\d/])"
)
# The title block's describing field: '**Phase Goal:** …'; and any field that opens a line.
_ANY_FIELD = compile_lazily(r"[ \t]*[-*+]?[ \t]*(?:\*\*|__)[^*_]{1,40}(?:\*\*|__)")
_GOAL_FIELD = compile_lazily(r"[ \t]*[*_]{0,2}phase goal[*_ \t]*:")


def _title(text: str) -> str:
    """A heading's title as the inventory spells it: lower case, its numbering and a trailing
    parenthesis dropped ('### 5. Data-Flow Trace (Level 4)' → 'data-flow trace')."""
    title = norm(text).strip().lower().strip(" *_`:")
    number = _TITLE_NUMBER.match(title)
    title = title[number.end() :] if number is not None else title
    if title.endswith(")") and "(" in title:
        title = title[: title.rfind("(")]
    return title.strip(" *_`:")


def _roles(data: object, *, review: bool) -> dict[str, Role]:
    """The section roles of the report's template: the code review's, or the verifier's —
    with its re-verification history when the frontmatter records closed gaps and none
    open (`_open_gaps`) or regressed (`_regressions`)."""
    if review:
        return _REVIEW_ROLES
    if _closed_gaps(data) and _open_gaps(data, []) is None and _regressions(data) is None:
        return {**_VERIFICATION_ROLES, **{part.title: part.role for part in CLOSURE_SECTIONS}}
    return _VERIFICATION_ROLES


def _describing_lines(doc: Doc, roles: dict[str, Role]) -> frozenset[int]:
    """The lines of the sections the template defines as describing (`_gsd_inventory`), under
    an approving status: a `describes` section whole but for a line that states a verdict
    field (`_VERDICT_FIELD`), and of a `table` section the template's own header row. Also
    the title block's `**Phase Goal:**` field. A section the template does not define is
    read as written."""
    found: set[int] = set()
    role: Role | None = None
    first_section = True
    goal = False
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level:
            role = roles.get(_title(line.heading_text))
            first_section = first_section and line.heading_level < 2  # under the title
            if role is Role.DESCRIBES:
                found.add(index)
            goal = False
            continue
        # not only live lines: one shaped like an instruction or example ('Note the
        # placeholder') is the section's text too, which the generic reader would show
        if line.blank:
            goal = False
            continue
        if _VERDICT_FIELD.match(line.low):
            goal = False
            continue
        # the goal field, with the lines its paragraph wraps onto up to the next field
        if _ANY_FIELD.match(line.low):
            goal = first_section and _GOAL_FIELD.match(line.low) is not None
        if goal:
            found.add(index)
        if role is None or role is Role.DECIDES:
            continue
        if role is Role.TABLE:
            # Only the template's own header row ('| Requirement | Status | Blocking Issue
            # |'): the rows are the check-table reader's, and a plain statement between the
            # tables stays with the readers (strictly, `_field_sections` holds it outside
            # every field: a defect told as a fact beside passing rows).
            if is_table_row(line.raw) and _template_header(doc, index):
                found.update((index, index + 1))
            continue
        found.add(index)
    return frozenset(found)


# The frontmatter keys every template version defines (`_gsd_inventory`), top level only.
_TEMPLATE_KEYS = frozenset(
    part.title for version in (*VERIFICATIONS, *CODE_REVIEWS) for part in version.frontmatter
)
_DATE = compile_lazily(r"[ \t]*(\d{4}-\d\d-\d\d)")


def _dated_after_verification(data: object) -> bool:
    """A key the template does not define, dated after the report's own `verified:` /
    `reviewed:` date (`passed_at: 2026-06-14` over `verified: 2026-06-09`): someone wrote the
    frontmatter after the verifier wrote the body, so the frontmatter is the newer record."""
    if not isinstance(data, dict):
        return False
    written = _date_of(data.get("verified")) or _date_of(data.get("reviewed"))
    if written is None:
        return False
    return any(
        str(key).lower() not in _TEMPLATE_KEYS and (_date_of(value) or "") > written
        for key, value in data.items()
    )


def _date_of(value: object) -> str | None:
    """The ISO date a YAML value opens with ('2026-06-14', '2026-06-14T10:00:00Z'), or None."""
    if value is None or isinstance(value, (dict, list)):
        return None
    found = _DATE.match(str(value))
    return found.group(1) if found is not None else None


def _template_header(doc: Doc, index: int) -> bool:
    """The line is a table's header row (a separator row follows) whose cells are the
    columns a template version gives that table (`_gsd_inventory`)."""
    if index + 1 >= len(doc.lines) or not doc.lines[index + 1].live:
        return False
    if _SEPARATOR_ROW.fullmatch(doc.lines[index + 1].raw) is None:
        return False
    cells = doc.lines[index].raw.strip().strip("|").split("|")
    return tuple(" ".join(cell.split()).lower() for cell in cells) in _HEADERS


_SEPARATOR_ROW = compile_lazily(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*(?::?-+:?[ \t]*)?")


def _partial_counts(doc: Doc) -> tuple[int, str] | None:
    """(line, why) of a check section's count line that counts fewer than its whole
    ('**Score:** 4/5 truths verified', '**Coverage:** 2/3 requirements satisfied'): the
    template's tally of its check table, which decides like the frontmatter's `score:`."""
    role: Role | None = None
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level:
            role = _VERIFICATION_ROLES.get(_title(line.heading_text))
        elif role is Role.TABLE and line.live and _partial_count(line.low):
            return index, f"line {line.number}: a check section counts fewer than its whole"
    return None


def _partial_count(text: str) -> bool:
    """A count line that counts fewer than its whole ('**Score:** 4/5 truths verified')."""
    count = _COUNT_LINE.match(text)
    return count is not None and int(count.group(1)) < int(count.group(2))


# The template's signature after its last '---': '_Reviewed: 2026-06-25T15:38:49Z_',
# '_Reviewer: Claude (gsd-code-reviewer)_', '_Depth: standard_', '_Verified: …_',
# '_Verifier: Claude (gsd-verifier)_'. Each value in the shape the template fills in, so a
# sentence written there is not part of the signature.
_FOOTER_LINE = compile_lazily(
    r"[ \t]*_(?:(?:reviewed|verified):[ \t]*"
    r"(?:\d{4}-\d\d-\d\d(?:[t ][\d:.]{5,12}z?)?|\{timestamp\})|"
    r"(?:reviewer|verifier):[ \t]*[\w .-]{1,30}\((?:gsd-[a-z-]{1,30}|phase closeout review)\)|"
    r"depth:[ \t]*(?:quick|standard|deep|\{depth\}))_[ \t]*"
)


def _footer(doc: Doc) -> frozenset[int]:
    """The lines of GSD's signature: after the document's last thematic break, only
    signature lines (`_FOOTER_LINE`) and blank lines. Accounted for, so a signature that
    ends a findings section is not read as a finding."""
    lines: set[int] = set()
    for index in range(len(doc.lines) - 1, doc.frontmatter_end, -1):
        line = doc.lines[index]
        if THEMATIC_BREAK.fullmatch(line.raw):
            return frozenset(lines)
        if line.blank:
            continue
        if not line.live or _FOOTER_LINE.fullmatch(line.low) is None:
            return frozenset()
        lines.add(index)
    return frozenset()


# The signer's line of the template's signature: '_Verifier: Claude (gsd-verifier)_',
# '**Reviewer:** Codex (gsd-code-reviewer)'. It names the GSD agent that wrote the report.
_SIGNER = compile_lazily(r"(?<![a-z-])(?:verifier|reviewer)[*_ \t]*:[*_ \t]*[^()\n]{0,40}\(gsd-")
# A field of the signature (the template's keys, each value in the shape it is filled in
# with), or the report's `Status:` field, whose value the verdict readers weigh as a site.
_FIELD = (
    r"[*_]{1,2}(?:(?:re-?)?(?:reviewed|verified)[*_ \t]*:[*_ \t]*"
    r"(?:\d{4}-\d\d-\d\d(?:[t ][ \d:.]{5,13}(?:z|[+-]\d\d:?\d\d)?)?|\{timestamp\})|"
    r"(?:reviewer|verifier)[*_ \t]*:[*_ \t]*[\w .-]{1,30}\(gsd-[a-z-]{1,30}(?:,[\w -]{1,30})?\)|"
    r"depth[*_ \t]*:[*_ \t]*(?:quick|standard|deep|\{depth\}))[*_]{0,2}"
)
_SIGNATURE_FIELD = compile_lazily(rf"[ \t]*(?:{_FIELD}[ \t]*){{1,3}}")
# After the signature it holds the template's value ('**Status:** passed', also the
# re-verification's 'passed (after gap closure)'), and after a dash or colon at most the
# verifier's appraisal of it ('PASSED — all 11 must-haves verified, zero gaps'): other words
# beside the value ('passed — the export still crashes') are text in the signature.
_STATUS_FIELD = compile_lazily(
    r"[ \t]*[*_]{0,2}status[*_ \t]*:[*_ \t]*[a-z_]{1,20}"
    r"(?:[ \t]*\((?:after )?(?:gap closure|re[- ]?verification)\))?[*_ \t.]*"
    r"(?:(?:[—–:]|--?)[ \t]+(.+))?"
)
# The signature block's metadata after the signer, one italic `_Key: value_` line each
# ('_TypeScript: ✓ PASSED_', '_Artifacts: 12/12 VERIFIED_', '_Links: 7/7 WIRED_'): a short key
# and a value that names a passing state — a check mark or a whole count (`N/N`, both numbers
# the same) and a word of the closed list of states a check is reported in. A value in any
# other shape ('✗ FAILED', '3/12 VERIFIED', a sentence) is no metadata: text after the
# signature, as before.
_PASSING_STATE = (
    r"(?:pass|passed|passing|verified|wired|met|satisfied|clean|complete|completed|ok|green|"
    r"success|succeeded|covered|achieved|present|exists|substantive|resolved|closed)"
)
_METADATA_FIELD = compile_lazily(
    r"[ \t]*([*_])[a-z][\w.+#-]{0,24}(?:[ \t][a-z][\w.+#-]{0,24}){0,2}[ \t]*:[ \t]*"
    r"(?:(?:[✓✔✅☑][\ufe0f]?[ \t]*)(?:" + _PASSING_STATE + r")?|"
    r"(?P<held>\d{1,4})[ \t]*/[ \t]*(?P<of>\d{1,4})(?:[ \t]+"
    + _PASSING_STATE
    + r")?|"
    + _PASSING_STATE
    + r")[ \t]*\1[ \t]*"
)
# A line wholly in strong emphasis: the report's closing summary ('**All must-haves achieved.
# Phase goal verified complete.**'), weighed by the sentence readers like any verdict prose.
_STRONG_LINE = compile_lazily(r"[ \t]*(\*\*|__)[^*_].*[^*_]\1[ \t]*")


def _after_signature(doc: Doc) -> tuple[int, str] | None:
    """(line index, why) of the first line after the report's signature (its first signer
    line, `_SIGNER`, after a thematic break) that is not part of it: the signature closes
    GSD's template, so text after it is outside every section the template has, and a
    person reads it beside the verdict. Allowed there: the signature's own fields, the
    report's `Status:` field, and one closing line wholly in strong emphasis as the
    document's last line."""
    lines = doc.lines
    signer = _first_signer(doc)
    if signer is None:
        return None
    if not _SIGNATURE_FIELD.fullmatch(lines[signer].low):
        # the signer's line holds only the signature's fields, each in the template's shape
        return signer, f"text in the report's signature ('{lines[signer].raw.strip()[:60]}')"
    above = _signature_text(doc, signer)
    if above is not None:
        return above, f"text in the report's signature ('{lines[above].raw.strip()[:60]}')"
    last = max((i for i in range(signer, len(lines)) if not lines[i].blank), default=signer)
    for index in range(signer + 1, len(lines)):
        line = lines[index]
        if line.blank or not line.raw.strip():
            continue
        text = line.low
        if _SIGNATURE_FIELD.fullmatch(text) or _status_field(text) or _metadata_field(text):
            continue
        if index == last and _STRONG_LINE.fullmatch(text):
            continue
        why = f"text after the report's signature, outside its template ('{line.raw.strip()[:60]}')"
        return index, why
    return None


# Words after a field that make a clause, not a timestamp's zone or a note ('UTC', '(CET)').
_WORDS = compile_lazily(r"[a-z]{2,}")
_CLAUSE_WORDS = 3


def _signature_text(doc: Doc, signer: int) -> int | None:
    """The line of the signature's block above its signer that opens with a field and goes
    on with a clause ('_Verified: 2026-05-02_ · the export leaks emails'), or None. A word
    or two after it (a zone, 'UTC', '(CET)') is a timestamp the field's shape lacks."""
    for index in range(signer - 1, doc.frontmatter_end, -1):
        line = doc.lines[index]
        if line.blank:
            continue
        field = _SIGNATURE_FIELD.match(line.low)
        if field is None:
            return None
        if len(_WORDS.findall(line.low, field.end())) >= _CLAUSE_WORDS:
            return index
    return None


def _between_breaks(doc: Doc) -> tuple[int, str] | None:
    """(line index, why) of text between the signature's thematic break and a break before
    it with no heading between them ('---' / 'The export job still times out.' / '---' /
    signature): the template has one break, before its signature, and a section always
    opens with a heading, so that text stands outside every section the template has."""
    signer = _first_signer(doc)
    if signer is None:
        return None
    lines = doc.lines
    closing = next(
        (
            i
            for i in range(signer - 1, doc.frontmatter_end, -1)
            if THEMATIC_BREAK.fullmatch(lines[i].raw)
        ),
        None,
    )
    text: int | None = None  # the first visible line above the signature's break
    for index in range(closing - 1 if closing is not None else -1, doc.frontmatter_end, -1):
        line = lines[index]
        if line.heading_level:
            return None
        if THEMATIC_BREAK.fullmatch(line.raw):
            if text is None:
                return None
            why = f"text between two breaks before the signature ('{lines[text].raw.strip()[:60]}')"
            return text, why
        if line.live and not line.blank and line.raw.strip():
            text = index
    return None


def _metadata_field(text: str) -> bool:
    """A metadata line of the signature block whose value passes (`_METADATA_FIELD`)."""
    field = _METADATA_FIELD.fullmatch(text)
    if field is None:
        return False
    held, of = field.group("held"), field.group("of")
    return held is None or (int(held) == int(of) and int(of) > 0)


def _status_field(text: str) -> bool:
    """The report's `Status:` field in its template shape (`_STATUS_FIELD`)."""
    field = _STATUS_FIELD.fullmatch(text)
    return field is not None and (field.group(1) is None or unappraised(field.group(1)) is None)


def _first_signer(doc: Doc) -> int | None:
    """The line index of the first signer line that stands in a signature: after a thematic
    break, with only blank lines and signature fields between them, or right after the
    signature's date field without a break (`_Verified: …_` / `_Verifier: …_`: the block's
    own shape), or opening a paragraph that holds only signature fields (the signature
    without its break: `No gaps.` / `_Verifier: Claude (gsd-verifier)_`) below the last
    heading — with a section after it, such a paragraph is the summary's sign-off, not the
    template's end — in one forward pass. A signer line elsewhere is text of the section it
    stands in and closes nothing; a second signature after the first is text after it
    (prose, then '---' and another signer line, must not pass for part of the body)."""
    after_break = False  # only a break, blank lines and signature fields since the last break
    after_field = False  # the last line that is not blank is a signature field
    after_blank = False  # the line above is blank: this one opens a paragraph
    last_heading = max((i for i, line in enumerate(doc.lines) if line.heading_level), default=-1)
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        alone = (
            after_blank
            and index > last_heading
            and _SIGNATURE_FIELD.fullmatch(line.low) is not None
        )
        after_blank = line.blank
        if (after_break or after_field or alone) and _SIGNER.search(line.low):
            return index
        if line.blank:
            continue
        # a line that opens with a field ('_Verified: …_ · and more') is the signature's too:
        # its extra words are text in the signature (`_signature_text`)
        after_field = _SIGNATURE_FIELD.match(line.low) is not None
        if THEMATIC_BREAK.fullmatch(line.raw):
            after_break = True
        elif not after_field:
            after_break = False
    return None


# The verifier's `score:` ('8/8 must-haves verified'): how many of the phase's truths hold.
_SCORE = compile_lazily(r"[ \t]*(\d{1,4})[ \t]*/[ \t]*(\d{1,4})(?![\d/])")


def _partial_score(data: object, keys: list[tuple[int, str, str]]) -> tuple[int, str] | None:
    """(line, why) when the top-level `score:` says fewer truths hold than the phase has
    ('4/6'): the verifier counted gaps, whatever `status:` says."""
    if not isinstance(data, dict):
        return None
    score = _SCORE.match(str(data.get("score", "")))
    if score is None or int(score.group(1)) >= int(score.group(2)):
        return None
    held, wanted = score.groups()
    index = next((i for i, key, _ in keys if key == "score"), 1)
    return index, f"the frontmatter's score says {held} of {wanted} verified"


# A code review's finding heading: 'IN-01: …' (info; also spelt 'INF-1'), 'WR-02' (warning),
# 'CR-01' (critical).
_FINDING_HEADING = compile_lazily(r"[#\s*_]*(inf?|wr|cr)-\d{1,3}\b")


def _info_findings(doc: Doc) -> frozenset[int]:
    """The lines of the code review's info findings (`### IN-01: …` and its block up to the
    next heading): graded by the template, not prose after the verdict — unless a line of the
    block states a problem (blocking work, a defect now, another verdict, a condition on the
    merge), which leaves the block to the generic reader. Warnings and critical findings are
    left to it too."""
    found: set[int] = set()
    block: list[int] = []
    ok = False
    for index in range(doc.frontmatter_end + 1, len(doc.lines) + 1):
        line = doc.lines[index] if index < len(doc.lines) else None
        if line is None or line.heading_level:
            if ok:
                found.update(block)
            heading = _FINDING_HEADING.match(line.clean) if line is not None else None
            ok = heading is not None and heading.group(1) in ("in", "inf")
            block = [index]
            continue
        block.append(index)
        if ok and line.live and (states_problem(line.clean) or _graded_higher(line.clean)):
            ok = False
    return frozenset(found)


_SEVERITY_FIELD = compile_lazily(r"[-*+ \t]*severity ?: ?(\w+)")
_INFO_GRADES = frozenset({"info", "informational", "low", "minor", "nit", "note"})


def _graded_higher(text: str) -> bool:
    """A `Severity:` field in an info finding's block that grades it above info."""
    field = _SEVERITY_FIELD.match(text)
    return field is not None and field.group(1) not in _INFO_GRADES


def _human_problem(data: object) -> tuple[int, str] | None:
    """(line index, why) when a check of the frontmatter's `human_verification:` says more
    than a check: read like a line of the body (which the body's own readers read).

    GSD's verifier lists checks it cannot run (`human_verification:`, a `Human Verification
    Required` section) whatever it decides; `human_needed` is the status that makes them
    conditions. Under `passed` they are the template's notes for a person, and the labelling
    rule reads `passed` with no open gap as an approval: a check does not block, a no or a
    condition written as one does."""
    if not isinstance(data, dict):
        return None
    for text in map(norm, _leaves(data.get("human_verification"))):
        if check_problem(text) is not None:
            return 1, f"the frontmatter's human checks say more than a check ({text[:60]!r})"
    return None


def _pending_checks(data: object, keys: list[tuple[int, str, str]]) -> tuple[int, str] | None:
    """(line, why) when a passing report's frontmatter lists behaviour checks no test
    exercised (gsd-core's `behavior_unverified: N`, `behavior_unverified_items:`): claims
    the verifier could not check, which the fork routes to a person as unverified. A
    frontmatter that is the newer record (`updated:`, `human_uat_*`, a key dated after
    `verified:`) has settled them.

    Not `human_verification:`: under `passed` those are the template's notes for a person
    (the labelling rule: "`passed` with no open gaps = approve"; `human_needed` is the
    status that makes them conditions), as real passing reports write them and as the
    held-out labels read them, though gsd-verifier's prompt says a passing report leaves
    the list empty."""
    if not isinstance(data, dict):
        return None
    for key in _PENDING_KEYS:
        value = data.get(key)
        if _positive(value) if key == "behavior_unverified" else value not in _EMPTY:
            line = next((index for index, name, _ in keys if name == key), 1)
            return (
                line,
                f"the frontmatter lists checks still to run ('{key}') under a passing status",
            )
    return None


# Frontmatter keys of checks the verifier routes to a person as unverified (`_gsd_inventory`):
# a fork's behaviour checks no test exercised.
_PENDING_KEYS = ("behavior_unverified_items", "behavior_unverified")


def _positive(value: object) -> bool:
    """A YAML count above zero (`behavior_unverified: 2`)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _leaves(value: object) -> list[str]:
    """Every scalar of a YAML value, as text."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in _leaves(item)]
    if isinstance(value, list):
        return [text for item in value for text in _leaves(item)]
    return [] if value is None else [str(value)]


def _top_level_keys(doc: Doc) -> list[tuple[int, str, str]]:
    """(line index, key, raw value) of every top-level `key: value` line of the frontmatter."""
    found = []
    for index in range(1, doc.frontmatter_end):
        raw = doc.lines[index].raw
        if raw[:1] in (" ", "\t", "-", "#"):
            continue
        match = KEY_LINE.match(norm(raw).strip())
        if match is not None:
            found.append((index, match.group(1), match.group(2)))
    return found


def _status_site(doc: Doc, index: int, raw_value: str) -> Site | None:
    """The site of a `status:` line holding one of GSD's values, or None (not GSD's)."""
    value, _, comment = raw_value.partition(" #")
    word = value.strip().strip("'\"").strip().lower()
    decision = _STATUS.get(word)
    if decision is None:
        return None
    reason = f"GSD frontmatter 'status' says '{word}'"
    comment = comment.strip(" #\t")
    if decision is Decision.APPROVE and comment:
        # The comment is visible to whoever reads the file: it may qualify the value.
        decision = Decision.MALFORMED
        reason += f" (a comment follows it: '# {comment[:80]}')"
    return Site(
        index=index,
        decision=decision,
        dialect=NAME,
        reason=reason,
        kind=LabelKind.STATUS,
        lookalike=has_lookalike(doc.lines[index].raw),
        frontmatter=True,
        clean=word == "clean",
    )


def _open_gaps(data: object, keys: list[tuple[int, str, str]]) -> tuple[int, str] | None:
    """(line index, why) when the frontmatter lists an open gap (`gaps`, `gaps_remaining`, also
    under `re_verification`), or does not read as YAML at all: YAML decides, not the layout of
    its lines (a list at the key's own indentation, a quoted key, a flow mapping)."""
    line = next((index for index, key, _ in keys if key.startswith("gaps")), 1)
    if not isinstance(data, dict):
        return line, "the frontmatter of a GSD report does not read as a YAML mapping"
    again = data.get("re_verification")
    holders = [data, again] if isinstance(again, dict) else [data]
    for holder in holders:
        for key in _GAP_KEYS:
            value = holder.get(key)
            if isinstance(value, str):
                value = value.strip().lower()
            if value not in _EMPTY and not _empty_categories(value):
                return line, f"the frontmatter lists open {key.replace('_', ' ')}"
    return None


def _regressions(data: object) -> tuple[int, str] | None:
    """(line, why) when the re-verification lists regressions (`re_verification:
    regressions:`, gsd-verifier 3 on): a truth that passed before and fails now."""
    again = data.get("re_verification") if isinstance(data, dict) else None
    value = again.get("regressions") if isinstance(again, dict) else None
    if isinstance(value, str):
        value = value.strip().lower()
    if value in _EMPTY:
        return None
    return 1, "the frontmatter's re-verification lists regressions"


def _empty_categories(value: object) -> bool:
    """Gaps kept by category with every category an empty list, as GSD's milestone audit
    writes them (`gaps: {requirements: [], integration: [], flows: []}`). A category with
    nothing after it (`flows:`), text, a mapping or an entry is no empty list: a key may be
    the gap itself (`checkout drops the coupon:`)."""
    return isinstance(value, dict) and bool(value) and all(v == [] for v in value.values())


def _load(doc: Doc) -> object:
    """The frontmatter through `yaml.safe_load`, or None when it does not read (or is huge)."""
    return load_yaml("\n".join(doc.lines[i].raw for i in range(1, doc.frontmatter_end)))


# The verifier's re-verification mode names its own step beside the body status it repeats
# from the frontmatter: 'passed (after gap closure)', 'PASSED (after re-verification)'. Read
# only whole, in this shape: any other text in the parenthesis is read as written.
_REVERIFIED_STATUS = compile_lazily(
    r"(?:[-+] )?(?:status|result) ?: ?passed[ \t]*"
    r"\((?:after )?(?:gap closure|re[- ]?verification)\)"
    r"[ \t.]*"
)
# Frontmatter keys that record the gaps a re-verification closed (at the top level, or under
# `re_verification:`).
_CLOSED_KEYS = ("gaps_closed", "gaps_resolved")


def _closed_gaps(data: object) -> bool:
    """The frontmatter records gaps that a re-verification closed: a non-empty `gaps_closed`
    or `gaps_resolved`, at the top level or under `re_verification:`. Open ones are
    `_open_gaps`'s to block."""
    if not isinstance(data, dict):
        return False
    nested = data.get("re_verification")
    records = [data, nested] if isinstance(nested, dict) else [data]
    return any(r.get(key) not in _EMPTY for r in records for key in _CLOSED_KEYS)


# A gap's id as the verifier writes it first in a `gaps_closed` entry and in the body's audit
# table: 'CR-01', 'WR-05-CAP-SHADOW', 'SC2-COMBINED' (letters, digits, at least one hyphen).
_GAP_ID = compile_lazily(r"[a-z][a-z0-9]{0,11}(?:-[a-z0-9]{1,24}){1,5}")


# A cell of such a row that gives the gap a state other than closed (a gap's state values:
# open, pending, partial …), or negates or continues what it reports (closed-class words:
# 'not', 'still', 'yet'): the row is not the closed gap's record, and is read as written.
_OPEN_WORD = compile_lazily(
    r"(?<!\w)(?:open|reopened|pending|unresolved|outstanding|remaining|todo|wip|in progress|"
    r"partial|partially|deferred|blocked|failing|failed|regressed|not|no|never|none|still|yet|"
    r"cannot|can't|won't|doesn't|isn't|aren't|wasn't|didn't)(?!\w)"
)


def _closed_ids(data: object) -> frozenset[str]:
    """The ids that open the entries of `gaps_closed` / `gaps_resolved` ('CR-01 — writer now
    emits …'), when no gap is left open (`_open_gaps` blocks otherwise)."""
    if not isinstance(data, dict) or _open_gaps(data, []) is not None:
        return frozenset()
    nested = data.get("re_verification")
    records = [data, nested] if isinstance(nested, dict) else [data]
    ids = set()
    for record in records:
        for key in _CLOSED_KEYS:
            entries = record.get(key)
            for entry in entries if isinstance(entries, list) else []:
                found = _GAP_ID.match(str(entry).strip().lower())
                if found is not None:
                    ids.add(found.group(0))
    return frozenset(ids)


def _closed_gap_rows(doc: Doc, data: object) -> frozenset[int]:
    """Body table rows that record a gap the frontmatter lists as closed: the row opens with
    the gap's id ('| CR-01-FIXTURE-INDENT | blocker | 03-09 | now uses … |'), so its severity
    is the closed gap's, not an open finding's — unless a cell states a problem now."""
    ids = _closed_ids(data)
    found: set[int] = set()
    for index in range(doc.frontmatter_end + 1, len(doc.lines)) if ids else ():
        line = doc.lines[index]
        if not line.live or not is_table_row(line.raw) or len(line.low) > 2000:
            continue
        # the raw cell: the cleaned text respells an id's hyphens ('cr-01-fixture indent')
        first = line.low.strip().strip("|").split("|", 1)[0].strip(" \t*_`")
        cells = line.clean.strip().strip("|").split("|")
        if first in ids and not any(states_problem(c) or _OPEN_WORD.search(c) for c in cells[1:]):
            found.add(index)
    return frozenset(found)


# The verifier's `Re-verification` field, in the template's two values: 'Yes — after gap
# closure' and 'No — initial verification', with at most a note in parentheses of what the
# closure ran ('(Plan 06-03 executed)', '(commit: fix(02): wire the factory)').
_REVERIFICATION_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_]{0,2}re-?verification[*_ \t]*:[*_ \t]*"
    r"(?:(?P<yes>yes)[ \t]*(?:[—–-]{1,2}|,)[ \t]*after gap closure|"
    r"no[ \t]*(?:[—–-]{1,2}|,)[ \t]*initial verification)"
    r"[ \t.]*(?:\((?P<note>[^()]{0,200}(?:\([^()]{0,80}\)[^()]{0,120})?)\))?[ \t.]*"
)


def _reverification_field(doc: Doc, data: object) -> frozenset[int]:
    """The body's `**Re-verification:**` lines in the template's shape (`_REVERIFICATION_FIELD`):
    the report's mode, not an answer with a condition after it. 'Yes — after gap closure' only
    where the frontmatter records the re-verification (`re_verification:` with the earlier
    status, or closed gaps), and a note only when it states no problem and gives the closure
    no other state (`_OPEN_WORD`)."""
    recorded = _closed_gaps(data) or (
        isinstance(data, dict)
        and isinstance(data.get("re_verification"), dict)
        and "previous_status" in data["re_verification"]
    )
    found = set()
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if not line.live or line.blank or len(line.low) > 400 or "verification" not in line.low:
            continue
        field = _REVERIFICATION_FIELD.fullmatch(line.low)
        if field is None or (field.group("yes") and not recorded):
            continue
        note = field.group("note") or ""
        if states_problem(note) or _OPEN_WORD.search(note):
            continue
        found.add(index)
    return frozenset(found)


def _reverified_status(doc: Doc) -> tuple[Site, ...]:
    """Body status lines that repeat the frontmatter's `passed` with the re-verification
    step that the frontmatter records (`_closed_gaps`): the template's own field, read by
    its own vocabulary, so the step's name is not a condition on the pass."""
    found = []
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if not line.live or line.blank or len(line.clean) > 200:
            continue
        if _REVERIFIED_STATUS.fullmatch(clean_value(line.clean)) is None:
            continue
        found.append(
            Site(
                index=index,
                decision=Decision.APPROVE,
                dialect=NAME,
                reason="GSD body status says 'passed' after the re-verification the "
                "frontmatter records",
                kind=LabelKind.STATUS,
                lookalike=has_lookalike(line.raw),
            )
        )
    return tuple(found)


def _stale_body_status(doc: Doc, front: Decision) -> frozenset[int]:
    """Body `**Status:**` lines that disagree with the (newer) frontmatter status."""
    stale = set()
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if not line.live or line.blank or len(line.clean) > 400:
            continue
        match = _BODY_STATUS.fullmatch(clean_value(line.clean))
        if match is None:
            continue
        answer = read_answer(match.group(1), LabelKind.STATUS)
        if answer is not None and answer.decision is not front:
            stale.add(index)
    return frozenset(stale)
