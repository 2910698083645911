"""Gerrit votes, read the way Gerrit counts them: the current patch set's votes, one per
reviewer and label.

`Code-Review+2` approves; `+1` is not an approval by itself (another reviewer must still
approve); `0` is no vote; `-1` asks for fixes; `-2` rejects (a veto). A negative vote on any
other label (`Verified-1`, a project's `Security-Review-1`) keeps the change from being
submitted; a positive one approves nothing by itself.

Where the votes are written:
- a line that is votes and nothing else: `Code-Review+2`, `- **Code-Review-1**`,
  `Code-Review: +2`, several on one line (`Code-Review+2 Verified+1`), after Gerrit's own
  `Patch Set 3:` or a reviewer's name (`Max Maintainer: Code-Review+2`); a bare
  `Patch Set 3:` line gives its patch set to the vote lines below it;
- a change-log message whose first line is `Patch Set 2: Looks good to me, approved`
  (Gerrit's own wording of the Code-Review values);
- the JSON of `gerrit query --format=JSON --all-approvals` (`patchSets[].approvals`,
  `currentPatchSet.approvals`: `type`, `value`, `by`) or of the REST API (`labels.<name>.all`).
A vote quoted inside a sentence is prose for the generic reader.

How they count: only the newest patch set's votes (a `-1` on patch set 1 is answered by patch
set 2), except a `-2`, which Gerrit copies to new patch sets, so it stands until its reviewer
votes again. Per reviewer and label the last vote counts; a vote whose reviewer is not named
is a reviewer of its own. Then: any `-2` rejects, any `-1` asks for fixes, else a `+2` approves
and a `+1` beside it is no objection; without a `+2` the document has no verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._checks import states_problem
from mergegate.verdicts._templates._fields import field_site
from mergegate.verdicts._templates._record import (
    JsonRecord,
    json_record,
    objects_in,
    verdict_keys,
)
from mergegate.verdicts._text import WORD, norm

__all__ = ["NAME", "recognise"]

NAME = "gerrit"
_CODE_REVIEW = "code-review"
_NO_LABEL = ""
"""The label of a patch set's mark: it exists (uploaded, listed), with or without votes."""


@dataclass(frozen=True, slots=True)
class _Vote:
    at: int
    """Line index it is written on."""
    reviewer: str | None
    label: str
    """Lower-case label name."""
    value: int
    patch_set: int | None


_DECORATION = "*_` \t"
_LIST_MARK = compile_lazily(r"(?:[-*+]|\d{1,3}[.)])[ \t]+")
_PATCH_SET = compile_lazily(r"[*_`]*patch[ \t]*set[ \t]+(\d{1,4})[ \t]*:[*_`]*[ \t]*(.*)")
# One vote: a label, then its value (signed, or after a colon: `Code-Review: 2`).
_ONE_VOTE = compile_lazily(
    r"([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,4})[ \t]*(?::[ \t]*([+-]?[0-2])|([+-][0-2]))"
    r"(?![0-9a-z])"
)
_SEPARATORS = " \t,;"
# A reviewer's name before the votes: `Max Maintainer: Code-Review+2`.
_NAMED = compile_lazily(r"([^:*_`]{1,60}?)[*_`]*[ \t]*:[ \t]+(.*)")
# Gerrit's own wording of the Code-Review values, as a change-log message states them.
_WORDED = {
    "looks good to me, approved": 2,
    "looks good to me, but someone else must approve": 1,
    "no score": 0,
    "i would prefer that you didn't submit this": -1,
    "i would prefer this is not submitted as is": -1,
    "i would prefer this is not merged as is": -1,
    "do not submit": -2,
    "this shall not be submitted": -2,
    "this shall not be merged": -2,
}
_MAX_LINE = 200


_LABEL_COLUMNS = ("label",)
_VALUE_COLUMNS = ("value", "vote", "score")
_REVIEWER_COLUMNS = ("reviewer", "by", "name", "voter", "account")


def _table_votes(doc: Doc) -> list[_Vote]:
    """The rows of a votes table (`| Label | Value | Reviewer |`): [] unless every body row of
    a table whose header names a label and a value column is one vote."""
    rows = [
        (i, [c.strip(" \t*_`") for c in norm(line.raw).strip().strip("|").split("|")])
        for i, line in enumerate(doc.lines)
        if line.live and line.raw.lstrip().startswith("|") and len(line.raw) <= _MAX_LINE
    ]
    if len(rows) < 3:
        return []
    header = rows[0][1]
    label = next((i for i, c in enumerate(header) if c in _LABEL_COLUMNS), None)
    value = next((i for i, c in enumerate(header) if c in _VALUE_COLUMNS), None)
    who = next((i for i, c in enumerate(header) if c in _REVIEWER_COLUMNS), None)
    if label is None or value is None:
        return _matrix_votes(rows, who)
    votes = []
    for index, cells in rows[2:]:
        number = _integer(cells[value]) if max(label, value) < len(cells) else None
        if number is None or not _ONE_LABEL.fullmatch(cells[label]):
            return []
        name = cells[who] if who is not None and who < len(cells) and cells[who] else None
        votes.append(_Vote(index, name, cells[label], number, None))
    return votes


_ONE_LABEL = compile_lazily(r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,4}")


def _matrix_votes(rows: list[tuple[int, list[str]]], who: int | None) -> list[_Vote]:
    """A table with a reviewer column and one column per label (`| Reviewer | Code-Review |
    Verified |`): each non-empty cell one vote; [] unless every such cell is a vote."""
    header = rows[0][1]
    if who is None or _CODE_REVIEW not in header:
        return []
    labels = [i for i, c in enumerate(header) if i != who and _ONE_LABEL.fullmatch(c)]
    votes = []
    for index, cells in rows[2:]:
        if len(cells) != len(header):
            return []
        for column in labels:
            cell = cells[column]
            number = _integer(cell) if cell not in ("", "-", "—") else 0
            if number is None:
                return []
            if cell not in ("", "-", "—"):
                votes.append(_Vote(index, cells[who] or None, header[column], number, None))
    return votes


def recognise(doc: Doc) -> Recognised | None:
    """The votes that count, as verdict fields, or None when the document holds no
    Code-Review vote."""
    record = json_record(doc)
    read = _json_votes(doc, record) if record is not None else None
    if read is not None:
        votes, scaffolding = read[0], frozenset[int]()
    else:
        text = _query_text_votes(doc)
        votes, scaffolding = text if text is not None else _line_votes(doc)
        votes = [*votes, *_table_votes(doc)] if text is None else votes
    if not any(v.label == _CODE_REVIEW for v in votes):
        return None
    sites = _sites(doc, _counted(votes))
    accounted = frozenset(v.at for v in votes) | scaffolding
    whole = False
    if record is not None and read is not None:
        sites.extend(read[1])
        accounted, whole = record.lines, record.whole
    return Recognised(name=NAME, sites=tuple(sites), accounted=accounted, whole=whole)


# --------------------------------------------------------------------------- lines


def _line_votes(doc: Doc) -> tuple[list[_Vote], frozenset[int]]:
    """The vote lines, and Gerrit's own lines around them: the bare `Patch Set N:` lines that
    head them, a notification email's header and footer, an inline comment's place."""
    votes: list[_Vote] = []
    heads: set[int] = set()
    patch_set: int | None = None
    sender: str | None = None  # the reviewer a notification email is from
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank or len(line.raw) > _MAX_LINE:
            continue
        text = norm(line.raw).strip(" \t")
        uploaded = _UPLOADED.fullmatch(text)
        title = _TITLE.fullmatch(text) if not votes and not heads else None
        if uploaded is not None:  # a patch set with no vote yet is still the newest
            votes.append(_Vote(index, None, _NO_LABEL, 0, int(uploaded.group(1))))
        if uploaded is not None or title is not None or _SCAFFOLD.fullmatch(text):
            heads.add(index)
            patch_set = int(uploaded.group(1)) if uploaded is not None else patch_set
            patch_set = int(title.group(1)) if title is not None and title.group(1) else patch_set
            posted = _POSTED.match(text)
            sender = posted.group(1).strip() if posted is not None else sender
            continue
        posted_by = _message_head(doc, index, text)
        if posted_by is not None:  # the change page's header of a message: author and date
            heads.add(index)
            sender = posted_by
            continue
        mark = _LIST_MARK.match(text)
        text = text[mark.end() :] if mark is not None else text
        author, text = _author(text)
        head = _PATCH_SET.fullmatch(text)
        if head is not None:
            patch_set, text = int(head.group(1)), head.group(2).strip(_DECORATION)
            if not text:
                heads.add(index)
                continue
            worded = _WORDED.get(text.rstrip(" ."))
            if worded is not None:
                votes.append(_Vote(index, author, _CODE_REVIEW, worded, patch_set))
                continue
        votes.extend(
            _Vote(index, who or author or sender, label, value, patch_set)
            for who, label, value in _on(text)
        )
    return votes, frozenset(heads)


# The header of a message on Gerrit's change page, as copied from it: the author's name, a
# run of blanks, and when it was posted (`review-agent        Nov 26 14:03`, `Max   2:03 PM`,
# `Jane  Nov 26, 2025`, `ci  2025-11-26 14:03`). Nothing else can stand on the line.
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]{0,6}\.?"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[ap]\.?m\.?)?"
_MESSAGE_HEAD = compile_lazily(
    rf"([^\s:*_`|#>,;!?][^:*`|,;!?]{{0,59}}?)[ \t]{{2,}}"
    rf"(?:{_MONTH}[ \t]+\d{{1,2}}(?:,?[ \t]+\d{{4}})?(?:,?[ \t]+{_CLOCK})?"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}(?:[ \tt]{_CLOCK})?|{_CLOCK})"
)
_BLANKS = compile_lazily(r"[ \t]{2,}")
_MOST_NAME_WORDS = 4
# What opens a message's body on the change page: its patch set (`Patch Set 3: Code-Review+2`,
# `Patch Set 3:`) or Gerrit's `Uploaded patch set 3.`
_MESSAGE_OPENS = compile_lazily(r"[*_`]*(?:patch[ \t]*set|uploaded patch set)[ \t]+\d{1,4}")


def _message_head(doc: Doc, index: int, text: str) -> str | None:
    """The author of the change-page message header at `index` (`_MESSAGE_HEAD`), or None.
    A header stands only directly above a message's body (the next line, or the one after a
    blank, opens with its patch set): a name and a date anywhere else are the generic
    reader's. A name that says something against the change ('Do Not Merge') is no name."""
    head = _MESSAGE_HEAD.fullmatch(text)
    if head is None:
        return None
    # The name as written: each word capitalised or a handle ('review-agent', 'Jane Dev'); a
    # lower-case sentence in the name's place ('rebase first') is not a header.
    shown = _BLANKS.split(doc.lines[index].raw.strip(), maxsplit=1)[0]
    name = head.group(1).strip()
    words = WORD.findall(shown)
    if len(words) > _MOST_NAME_WORDS or not all(_name_word(w) for w in words):
        return None
    if states_problem(name):
        return None
    below = next(
        (line for line in doc.lines[index + 1 : index + 3] if line.live and not line.blank), None
    )
    if below is None or _MESSAGE_OPENS.match(norm(below.raw).strip(" \t")) is None:
        return None
    return name


def _name_word(word: str) -> bool:
    """A word of a name, as a signature's (`_accounting.is_name_word`, which this module
    cannot import: it reads the templates): capitalised, or a handle ('review-agent')."""
    return not word[0].islower() or any(c in "-_.@" or c.isdigit() for c in word)


# A change-log message under its author's name: `Max Maintainer: Patch Set 3: Code-Review+2`.
_AUTHORED = compile_lazily(r"([^:*_`]{1,60}?)[ \t]*:[ \t]+(patch[ \t]*set[ \t]+\d{1,4}[ \t]*:.*)")
# Gerrit's own messages that place a patch set: `Uploaded patch set 3.`, `Patch Set 4: Patch
# Set 3 was rebased`.
_UPLOADED = compile_lazily(
    r"uploaded patch set (\d{1,4})(?: with [a-z0-9 ,-]{1,60})?\.?"
    r"|patch set (?:\d{1,4}): patch set \d{1,4} was rebased\.?"
)


# The change's title line, first in the document: `Change 4821 — "Fix NPE" (patch set 3)`
# (the subject quoted, so nothing else is said on the line).
_TITLE = compile_lazily(
    r"change \d{1,9}[ \t]*[—–:-][ \t]*\"[^\"]{1,200}\"(?:[ \t]*\(patch set (\d{1,4})\))?"
)


def _author(text: str) -> tuple[str | None, str]:
    authored = _AUTHORED.fullmatch(text)
    if authored is None:
        return None, text
    return authored.group(1).strip(_DECORATION), authored.group(2)


# Gerrit's own lines around a review message, as its notification email and change page
# write them: the email's header (`Max has posted comments on this change. ( url )`,
# `Change subject: …`, the dotted rule), a comment count, the place of an inline comment
# (`File src/a.py:`, its URL, `PS2, Line 42: <the code line>`), and the footer (`--`,
# `To view, visit …`, `To unsubscribe …`, `Gerrit-Project: …`). The reviewer's own comments
# stay for the generic reader.
_POSTED = compile_lazily(r"([^()]{1,80}) has posted comments on this change\.")
_SCAFFOLD = compile_lazily(
    r"[^()]{1,80} has posted comments on this change\.(?:[ \t]*\([ \t]*https?://\S{1,300}[ \t]*\))?"
    r"|change subject:.{0,300}|\.{10,400}|\(\d{1,4} (?:inline )?comments?\)"
    r"|file \S{1,300}:|https?://\S{1,400}|ps\d{1,4}, line \d{1,6}:.{0,400}|--"
    r"|build (?:successful|succeeded|started)(?: https?://\S{1,300})?\.?"
    r"|to view, visit https?://\S{1,300}"
    r"|to unsubscribe, or for help writing mail filters, visit https?://\S{1,300}"
    r"|gerrit-[a-z-]{1,40}:.{0,300}"
)


# --------------------------------------------------------------------------- query text


# `gerrit query` in its text format: `change I…`, then indented `key: value` lines.
_CHANGE = compile_lazily(r"change i[0-9a-f]{40}")
_KEY_LINE = compile_lazily(r"([ \t]*)([a-z][a-z_]{0,40}):[ \t]*(.{0,300})")


def _query_text_votes(doc: Doc) -> tuple[list[_Vote], frozenset[int]] | None:
    """The approvals of `gerrit query`'s text output (`approvals:` / `type: Code-Review` /
    `value: 2` / `by:` / `username: max`, under `currentPatchSet:` or `patchSets:`), and its
    lines; None when the document is not that output."""
    lines = [
        (i, norm(line.raw)) for i, line in enumerate(doc.lines) if line.live and not line.blank
    ]
    if not lines or _CHANGE.fullmatch(lines[0][1].strip()) is None:
        return None
    votes: list[_Vote] = []
    record = {lines[0][0]}
    sets_at: int | None = None  # indent of `currentPatchSet:` / `patchSets:`
    patch_set: int | None = None
    label: str | None = None
    for index, text in lines[1:]:
        field = _KEY_LINE.fullmatch(text)
        if field is None:
            continue
        record.add(index)
        indent, key, value = len(field.group(1)), field.group(2), field.group(3).strip()
        if key in ("currentpatchset", "patchsets"):
            sets_at, patch_set = indent, None
        elif key == "number" and sets_at is not None and indent > sets_at and value.isdigit():
            patch_set = int(value)
            votes.append(_Vote(index, None, _NO_LABEL, 0, patch_set))
        elif key == "type":
            label = value
        elif key == "value" and label is not None and (number := _integer(value)) is not None:
            votes.append(_Vote(index, None, label, number, patch_set))
            label = None
        elif key in ("username", "email") and votes and votes[-1].reviewer is None:
            last = votes[-1]
            votes[-1] = _Vote(last.at, value, last.label, last.value, last.patch_set)
    return votes, frozenset(record)


def _on(text: str) -> list[tuple[str | None, str, int]]:
    """The votes a line is made of (with the reviewer it names), or [] when it is anything
    else."""
    text = text.strip(_DECORATION)
    found = _votes_in(text)
    if found:
        return [(None, label, value) for label, value in found]
    each = _per_reviewer(text)
    if each:
        return each
    named = _NAMED.fullmatch(text)
    if named is None:
        return []
    who = named.group(1).strip(_DECORATION)
    return [(who, label, value) for label, value in _votes_in(named.group(2).strip(_DECORATION))]


# One label's votes with their reviewers: `Code-Review: +2 (Max Maintainer), +1 (Anna)`.
_LABEL_VOTES = compile_lazily(r"([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,4})[ \t]*:[ \t]*(.{1,300})")
_BY_NAME = compile_lazily(r"([+-]?[0-2])[ \t]*(?:\(([^()]{1,60})\)|by[ \t]+([^,()]{1,60}))")


def _per_reviewer(text: str) -> list[tuple[str | None, str, int]]:
    line = _LABEL_VOTES.fullmatch(text)
    if line is None:
        return []
    found: list[tuple[str | None, str, int]] = []
    for part in line.group(2).split(","):
        vote = _BY_NAME.fullmatch(part.strip(_DECORATION + "."))
        if vote is None:
            return []
        who = (vote.group(2) or vote.group(3)).strip()
        found.append((who, line.group(1), int(vote.group(1))))
    return found


def _votes_in(text: str) -> list[tuple[str, int]]:
    """`Code-Review+2 Verified+1` → [('code-review', 2), ('verified', 1)]; [] unless the
    text is votes and separators only."""
    found: list[tuple[str, int]] = []
    at = 0
    while at < len(text):
        vote = _ONE_VOTE.match(text, at)
        if vote is None:
            return []
        found.append((vote.group(1), int(vote.group(2) or vote.group(3))))
        at = vote.end()
        while at < len(text) and text[at] in _SEPARATORS:
            at += 1
    return found


# --------------------------------------------------------------------------- JSON


def _json_votes(doc: Doc, record: JsonRecord) -> tuple[list[_Vote], list[Site]] | None:
    """The votes of Gerrit's JSON (query output or REST `ChangeInfo`), with the sites of what
    else in it keeps the change from being submitted; None when it is too large to read."""
    votes: list[_Vote] = []
    sites: list[Site] = []
    for index, value in record.values:
        objects = objects_in(value)
        if objects is None:
            return None
        for change in objects:
            votes.extend(_change_votes(index, change))
        for key, field in verdict_keys(objects):
            found = _record_field(key, field)
            if found is not None:
                line = doc.lines[index]
                sites.append(field_site(index, line, found[0], dialect=NAME, reason=found[1]))
    return votes, sites


# Gerrit's keys of a verdict's name and what their values say: a change's `status`, a submit
# record's and its labels' `status`, a submit requirement's `status`; `submittable`,
# `mergeable`, a label's `blocking`. Any other such key is not Gerrit's (`verdict_keys`).
_STATUS_OK = frozenset(
    {"new", "merged", "ok", "may", "closed", "satisfied", "not_applicable", "overridden"}
)
_STATUS_NOT = frozenset(
    {"not_ready", "need", "reject", "rule_error", "impossible", "unsatisfied", "error"}
)
_NEUTRAL_KEYS = frozenset(
    {
        "approvals",
        "submitted",
        "submitter",
        "submitrecords",
        "submit_records",
        "submittype",
        "submit_type",
        "submit_requirements",
        "grantedon",
        "description",
        "is_current",
        "mergedat",
    }
)


def _record_field(key: str, value: object) -> tuple[Decision, str] | None:
    """What a key of a verdict's name in Gerrit's JSON says against submitting, or None."""
    low = key.lower()
    if low in _NEUTRAL_KEYS:
        return None
    if low == "status" and isinstance(value, str):
        return _status(value)
    if low in ("approved", "rejected") and isinstance(value, dict):
        return None  # a REST label's summary: the account (read as a vote by `_rest_votes`)
    if low in ("submittable", "mergeable") and isinstance(value, bool):
        return None if value else (Decision.FIXES, f"Gerrit says {key}: false")
    if low == "blocking" and isinstance(value, bool):
        return (Decision.FIXES, "a label blocks submission") if value else None
    return Decision.MALFORMED, f"the record's key '{key[:40]}' is not one Gerrit writes"


def _status(value: str) -> tuple[Decision, str] | None:
    status = value.lower()
    if status in _STATUS_OK:
        return None
    if status == "abandoned":
        return Decision.REJECT, "the change is ABANDONED"
    if status in _STATUS_NOT:
        return Decision.FIXES, f"Gerrit's status {value} keeps the change from being submitted"
    return Decision.MALFORMED, f"Gerrit's status '{value[:40]}' is not one it writes"


def _change_votes(index: int, change: dict[str, object]) -> list[_Vote]:
    votes: list[_Vote] = []
    patch_sets = change.get("patchSets")
    if isinstance(patch_sets, list):
        for patch_set in patch_sets:
            votes.extend(_approvals(index, patch_set))
    current = change.get("currentPatchSet")
    if current is not None:
        votes.extend(_approvals(index, current))
    labels = change.get("labels")
    if isinstance(labels, dict):
        votes.extend(_rest_votes(index, labels))
    return votes


def _approvals(index: int, patch_set: object) -> list[_Vote]:
    """`{"number": 2, "approvals": [{"type": "Code-Review", "value": "2", "by": …}]}`."""
    if not isinstance(patch_set, dict):
        return []
    number = _integer(patch_set.get("number"))
    approvals = patch_set.get("approvals")
    votes = [_Vote(index, None, _NO_LABEL, 0, number)] if number is not None else []
    if not isinstance(approvals, list):
        return votes
    for approval in approvals:
        if not isinstance(approval, dict):
            continue
        label, value = approval.get("type"), _integer(approval.get("value"))
        if isinstance(label, str) and value is not None:
            votes.append(_Vote(index, _who(approval.get("by")), label.lower(), value, number))
    return votes


def _rest_votes(index: int, labels: dict[str, object]) -> list[_Vote]:
    """REST `labels`: every vote in `all` (DETAILED_LABELS), or — without it — the summary
    keys Gerrit sets (`rejected` is a -2, `disliked` a -1 …, `approved` the label's top)."""
    summary = {"rejected": -2, "disliked": -1, "recommended": 1, "approved": 2}
    votes = []
    for label, info in labels.items():
        if not isinstance(info, dict):
            continue
        all_votes = info.get("all")
        if isinstance(all_votes, list):
            for vote in all_votes:
                value = _integer(vote.get("value")) if isinstance(vote, dict) else None
                if value is not None:
                    votes.append(_Vote(index, _who(vote), label.lower(), value, None))
            continue
        votes.extend(
            _Vote(index, _who(info[key]), label.lower(), value, None)
            for key, value in summary.items()
            if key in info
        )
    return votes


def _who(account: object) -> str | None:
    if not isinstance(account, dict):
        return None
    for key in ("username", "email", "name", "_account_id"):
        value = account.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    return None


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d{1,3}", value.strip()):
        return int(value)
    return None


# --------------------------------------------------------------------------- counting


def _counted(votes: list[_Vote]) -> list[_Vote]:
    """The votes Gerrit counts: the newest patch set's (and a `-2` of an older one, which
    Gerrit copies forward), the last one per named reviewer and label."""
    numbers = [v.patch_set for v in votes if v.patch_set is not None]
    current = max(numbers, default=None)
    ordered = sorted(votes, key=lambda v: v.patch_set if v.patch_set is not None else -1)
    last: dict[tuple[str, str], _Vote] = {}
    unnamed: list[_Vote] = []
    for vote in ordered:
        if vote.reviewer is None:
            unnamed.append(vote)
        else:
            last[(vote.reviewer.lower(), vote.label)] = vote
    return [
        v
        for v in sorted([*last.values(), *unnamed], key=lambda v: v.at)
        if v.patch_set is None or v.patch_set == current or v.value == -2
    ]


def _sites(doc: Doc, counted: list[_Vote]) -> list[Site]:
    """A site for each vote that keeps the change from being submitted; else one for the
    `+2` that approves, or one saying there is no approval yet."""
    against = [v for v in counted if v.value < 0]
    if against:
        return [_site(doc, v, *_against(v)) for v in against]
    approving = [v for v in counted if v.label == _CODE_REVIEW and v.value >= 2]
    if approving:
        return [_site(doc, approving[-1], Decision.APPROVE, "Code-Review+2 approves")]
    reviews = [v for v in counted if v.label == _CODE_REVIEW]
    if reviews:
        vote = reviews[-1]
        why = "Code-Review 0 is no vote"
        if vote.value > 0:
            why = "Code-Review+1 is not an approval by itself"
        return [_site(doc, vote, Decision.MALFORMED, why)]
    at = min(v.at for v in counted) if counted else 0
    line = doc.lines[at]
    why = "no Code-Review vote on the current patch set"
    return [field_site(at, line, Decision.MALFORMED, dialect=NAME, reason=why)]


def _against(vote: _Vote) -> tuple[Decision, str]:
    named = f"{vote.label.title()}{vote.value:+d}"
    if vote.label == _CODE_REVIEW:
        if vote.value <= -2:
            return Decision.REJECT, f"{named} vetoes the change"
        return Decision.FIXES, f"{named} asks for changes"
    decision = Decision.REJECT if vote.value <= -2 else Decision.FIXES
    return decision, f"{named}: a negative vote keeps the change from being submitted"


def _site(doc: Doc, vote: _Vote, decision: Decision, why: str) -> Site:
    by = f" ({vote.reviewer})" if vote.reviewer else ""
    where = f" on patch set {vote.patch_set}" if vote.patch_set is not None else ""
    reason = f"{why}{by}{where}"
    return field_site(vote.at, doc.lines[vote.at], decision, dialect=NAME, reason=reason)
