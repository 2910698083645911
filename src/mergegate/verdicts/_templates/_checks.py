"""Check tables of a verifier's report: one row per check, its result in a status cell.

GSD's verifier writes its evidence as tables — truths, artifacts, key links, requirements,
spot-checks, data flow — each row a claim (`sync does not accept --all`), a status from the
template's own vocabulary (`✓ VERIFIED`, `WIRED`, `✗ FAILED`, `NOT_WIRED`) and the evidence.
The status cell is the row's field: the claim says what had to be true, not what the reviewer
decides, so its words are never read as a verdict ('does not accept' withdraws nothing).

A table is accounted for when every row's status cells pass and no other cell ties a
condition to the merge, names blocking work, states a defect now or answers with another
verdict (a condition not tied to the merge describes the code: 'Passed only when the booking
is mine'). A row with a failing status (`✗ FAILED`, `PARTIAL`, `NOT_WIRED`, a failure mark),
or a passing one beside a cell that states a problem, contradicts a passing report: it is
blocking content. A status outside both vocabularies leaves its table to the generic reader.
Linear in the lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.verdicts._awaited import awaited_event
from mergegate.verdicts._defects import stated_defect
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import blocking_in, condition_in, merge_tied
from mergegate.verdicts._statement import CLAUSES, clause_problem, other_verdict
from mergegate.verdicts._text import UNMARKED
from mergegate.verdicts._vocab import clean_value

__all__ = ["CheckRows", "check_rows", "states_problem"]

# Header names of a status column (GSD: `Status`; its artifact table: one column per level).
_STATUS_HEADERS = frozenset({"status", "exists", "substantive", "wired", "level 1", "level 2"})
# The template's values (GSD's verifier: truths, artifacts, key links, requirements, data
# flow, spot-checks): vocabularies that name a field's values, the kind issue 23 keeps.
_PASS = frozenset(
    {"verified", "pass", "passed", "wired", "satisfied", "exists", "substantive", "flowing", "ok"}
)
_FAIL = frozenset(
    {
        "failed", "fail", "missing", "stub", "orphaned", "not wired", "partial", "blocked",
        "uncertain", "needs human", "hollow", "hollow prop", "disconnected", "static", "skip",
        "skipped", "not satisfied", "not verified", "broken", "gap", "no",
    }
)  # fmt: skip
# A re-verified row records when its check passed: the fix the report's own gap closure
# made ('✓ VERIFIED (after fix)', '✓ SATISFIED (after gap closure)'), read only whole.
_AFTER_FIX = compile_lazily(r"[ \t]*\(after (?:fix|fixes|the fix|gap closure)\)$")
_PASS_MARKS = frozenset("✓✔✅☑")
_FAIL_MARKS = frozenset("✗✘❌⚠?❓")  # beside a pass word too: not a pass
_MARKS = "".join(_PASS_MARKS | _FAIL_MARKS)
_CELL_SPLIT = compile_lazily(r"(?<!\\)\|")
_SEPARATOR = compile_lazily(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*")


@dataclass(frozen=True, slots=True)
class CheckRows:
    """What a report's check tables say."""

    passed: frozenset[int]
    """The lines of tables every row of which passes (header and separator included)."""
    failing: tuple[int, str] | None
    """(line index, why) of the first row that fails or states a problem beside its pass."""


def check_rows(doc: Doc, start: int) -> CheckRows:
    """The check tables of `doc` from line `start` on (see the module docstring)."""
    passed: set[int] = set()
    failing: tuple[int, str] | None = None
    table: list[int] = []
    columns: tuple[int, ...] = ()
    ok = False  # every row of the open table so far passes
    for index in range(start, len(doc.lines) + 1):
        line = doc.lines[index] if index < len(doc.lines) else None
        text = line.raw.strip() if line is not None else ""
        if line is None or not line.live or not text.startswith("|"):
            if ok:
                passed.update(table)
            table, columns, ok = [], (), False
            continue
        table.append(index)
        if len(table) == 1:  # the header row names the status columns
            columns = tuple(i for i, c in enumerate(_cells(text)) if _header(c) in _STATUS_HEADERS)
            ok = bool(columns)
            continue
        if not columns or _SEPARATOR.fullmatch(text):
            continue
        row = _row(_cells(text), columns)
        ok = ok and row is True
        if row is False and failing is None:
            failing = index, f"line {line.number}: a check of the report does not pass"
    return CheckRows(frozenset(passed), failing)


def _row(cells: list[str], columns: tuple[int, ...]) -> bool | None:
    """True when every status cell passes and no other cell states a problem; False when a
    status fails or a problem stands beside a pass; None for a status the vocabulary lacks."""
    statuses = [_status(cells[i]) for i in columns if i < len(cells)]
    if not statuses or None in statuses:
        return None
    if not all(statuses):
        return False
    others = [c for i, c in enumerate(cells) if i not in columns]
    if any(_still_to_come(c) for c in cells[max(columns) + 1 :]):
        return False
    return not any(states_problem(clean_value(c.lower())) for c in others)


def _status(cell: str) -> bool | None:
    """True for a passing status cell, False for a failing one, None for anything else."""
    text = cell.translate(UNMARKED).strip()
    marks = {ch for ch in text if ch in _MARKS}
    word = " ".join(text.strip(_MARKS + " \t").split()).lower().replace("_", " ")
    history = _AFTER_FIX.search(word)
    if history is not None and word[: history.start()].rstrip() in _PASS:
        word = word[: history.start()].rstrip()  # 'VERIFIED (after fix)': passed since the fix
    if marks & _FAIL_MARKS or word in _FAIL:
        return False
    if word in _PASS or (not word and bool(marks)):
        return True
    if _qualified_pass(word):
        return False
    return None


# A pass value and what the reviewer wrote after it in the same cell ('verified (after the
# fix is merged)', 'pass — pending the DBA'): the value's own word, then the rest.
_PASS_THEN = compile_lazily(r"(" + "|".join(sorted(_PASS, key=lambda w: (-len(w), w))) + r")\b(.+)")


def _qualified_pass(word: str) -> bool:
    """A pass value the rest of its cell holds back: it waits for an event
    (`_awaited`), states a problem, or is no statement (a wait, an order, another verdict).
    Such a check has not passed yet; any other addition ('verified (structural)') leaves the
    status outside the vocabulary, as before."""
    found = _PASS_THEN.match(word)
    if found is None:
        return False
    rest = found.group(2).strip(" \t()[]—–-:;,.")
    if not rest:
        return False
    if found.group(2).lstrip().startswith("(") and _restricted(rest):
        return True
    # The addition is a fragment ('after the rebase'), so how it opens is not read.
    mood = clause_problem(rest, openings=False)
    return awaited_event(rest) is not None or states_problem(rest) or mood is not None


# A note in parentheses right after a pass value either says how the check was made ('static',
# 'via test_x', 'after fix', '141 lines') or narrows what passed. Narrowing, in grammar
# (closed classes): a degree adverb or a quantifier short of whole ('mostly', 'partly', 'in
# most cases'), `only`, a negator
# ('not re-run'), a pointer to text elsewhere ('see caveat below'), or a count of runs
# short of its total ('2 of 5 runs', '3/4').
_NARROWING = compile_lazily(
    r"(?<![\w-])(?:mostly|partly|partially|largely|mainly|nearly|almost|somewhat|barely|"
    r"in part|most|some|few|several|only|not|no|never|without|see|cf|refer|below|above)"
    r"(?![\w-])|n't(?!\w)"
)
_SHORT_COUNT = compile_lazily(r"(?<![\w.])(\d{1,6})[ \t]*(?:/|of|out of)[ \t]*(\d{1,6})(?![\w.])")


def _restricted(note: str) -> bool:
    """The note in parentheses after a pass value narrows it (`_NARROWING`, a short count)."""
    if _NARROWING.search(note) is not None:
        return True
    return any(int(c.group(1)) < int(c.group(2)) for c in _SHORT_COUNT.finditer(note))


# The evidence after a status is what was observed. A cell there that opens with a modal
# (closed class), no subject before it ('Will be checked after sign-off', 'To be confirmed
# on staging'), tells a check still to come: the row has not passed. The claim before the
# status may open with one ('Can be triggered by the user'): it says what had to be true.
_MODAL_OPENING = compile_lazily(
    r"[ \t*_`]*(?:will|shall|should|must|would|could|can|may|might|to be|needs? to|"
    r"has to|have to|going to|yet to)(?![\w'’-])",
)


def _still_to_come(cell: str) -> bool:
    return _MODAL_OPENING.match(cell.lower()) is not None


def states_problem(text: str) -> bool:
    """Whether text beside a template's own field (an evidence cell, a YAML comment) states a
    problem. It describes the code ('Passed only when the booking is mine'): a condition
    counts only when tied to the merge; blocking work and a defect now always do,
    and so does a clause that answers with another verdict ('Release notes — do not merge')."""
    conditioned = merge_tied(text) and condition_in(text, answer_clause=False)
    said = conditioned or blocking_in(text) or stated_defect(text)
    return bool(said or any(_only_a_no(c) for c in CLAUSES.split(text)))


def _only_a_no(clause: str) -> bool:
    """The clause is a verdict other than yes and nothing else ('do not merge', 'Rejected.');
    a claim that opens with a negation goes on ('No `as TFile` casts remain in src/')."""
    value = clause.strip(" .!*_-—–")
    found = other_verdict(value)
    return found is not None and value == found


def _cells(text: str) -> list[str]:
    return [c.strip() for c in _CELL_SPLIT.split(text.strip().strip("|"))]


def _header(cell: str) -> str:
    return " ".join(cell.translate(UNMARKED).lower().split()).rstrip(":?")
