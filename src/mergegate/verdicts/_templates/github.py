"""GitHub review states, read the way GitHub counts them: per reviewer, the last review that
states a verdict.

`APPROVED` approves, `CHANGES_REQUESTED` asks for fixes; `COMMENTED`, `DISMISSED`, `PENDING`
and a pending request (`Requested`) are no verdict, and do not clear a reviewer's earlier
state (on GitHub only that reviewer's later approval, or a dismissal, clears a request for
changes; a dismissed review is saved with the state `DISMISSED`).

Where the reviews are written:
- a field line `state: <STATE>`, `review state: …`, `"state": "APPROVED",` (also as a bold
  label, `**Review state:** APPROVED`), its reviewer the `login` / `author` / `user` field
  above it in the same review;
- the JSON of `gh pr view --json reviews,latestReviews,reviewDecision` or `gh api
  …/pulls/N/reviews`, read value by value (`author.login` / `user.login`, `state`,
  `submittedAt`, `body`): reviews with a time are taken in time order (by the instant: a
  time with an offset is converted to UTC);
- a review list: a table with a reviewer and a state column (`| @bob | COMMENTED | … |`), a
  heading or line per review (`### @carol — APPROVED`, `carol<TAB>APPROVED<TAB>2024-05-02…`),
  `gh pr view`'s `reviewers: bob (Approved), carol (Commented)`, GitHub's own
  `alice approved these changes`, and `gh pr review --approve`'s receipt
  `✓ Approved pull request owner/repo#12`.
`reviewDecision: <STATE>` is GitHub's summary of all of them: `APPROVED` approves, any other
value (`REVIEW_REQUIRED`, `CHANGES_REQUESTED`) keeps the change from approving.

The reviews that count are each reviewer's last `APPROVED` or `CHANGES_REQUESTED` (a review
whose reviewer is not named is a reviewer of its own); the document approves when at least one
approves and none asks for changes. An approving JSON review's `body` is read like text after
an approval (`_answer.after_approval`); a superseded review's section (below its heading) is
the older record and not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mergegate.decisions import Decision
from mergegate.verdicts._answer import after_approval
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import field_site, line_fields, with_objections
from mergegate.verdicts._templates._record import (
    json_record,
    objects_in,
    saved_with,
    verdict_keys,
)
from mergegate.verdicts._text import norm

if TYPE_CHECKING:
    from datetime import datetime

__all__ = ["NAME", "recognise"]

NAME = "github"

_APPROVED, _CHANGES = "approved", "changes_requested"
_STATES = r"(approved|changes[_ ]requested|commented|dismissed|pending)"
_DECO = r"[*_`\"]*"
_STATE = compile_lazily(
    rf"[ \t]*(?:[-*+][ \t]+)?{_DECO}(?:review[ _]?state|state){_DECO}"
    rf"[ \t]*:{_DECO}[ \t]*{_DECO}{_STATES}{_DECO}[ \t,]*",
    re.IGNORECASE,
)
_REVIEW_DECISION = compile_lazily(
    rf"[ \t]*(?:[-*+][ \t]+)?{_DECO}review[ _]?decision{_DECO}[ \t]*:{_DECO}[ \t]*{_DECO}"
    rf"(approved|changes_requested|review_required|[a-z_]{{1,30}}){_DECO}[ \t,]*",
    re.IGNORECASE,
)
# The reviewer of the review a `state:` line belongs to: the field above it.
_AUTHOR = compile_lazily(
    rf"[ \t]*(?:[-*+][ \t]+)?{_DECO}(?:login|author|user|reviewer){_DECO}[ \t]*:[ \t]*{_DECO}"
    rf"@?([a-z0-9][a-z0-9-]{{0,38}}(?:\[bot\])?){_DECO}[ \t,]*",
    re.IGNORECASE,
)
_LOGIN = r"@?([a-z0-9][a-z0-9-]{0,38}(?:\[bot\])?)"
_WHEN = r"(?:[ \t]*[(·,—–-]?[ \t]*\d{4}-\d{2}-\d{2}[0-9tz:. +-]{0,20}\)?)?"
# One review on its own line: a heading or list item `@carol — APPROVED`, a jq/TSV row.
_REVIEW_LINE = compile_lazily(
    rf"(#{{1,6}}[ \t]+)?(?:[-*+][ \t]+)?[*_`]*((?:review (?:by|from) )?@?){_LOGIN[2:]}[*_`]*"
    rf"([ \t]*[—–:-][ \t]*|[ \t]+)"
    rf"[*_`(]*{_STATES}[*_`)]*{_WHEN}(?:[ \t]*[—–:-][ \t]*(.{{1,300}}))?[ \t]*"
)
# The reviewer a review's fields below belong to: `### Review from maria-dev`, `Review by @x`.
_REVIEW_BY = compile_lazily(rf"(?:#{{1,6}}[ \t]+)?[*_]*review (?:from|by) {_LOGIN}[*_]*[ \t]*:?")
# GitHub's timeline wording, and `gh pr review`'s receipt.
_WORDED = compile_lazily(
    rf"[*_`]*{_LOGIN}[*_`]*[ \t]+(approved these changes|requested changes|"
    r"left review comments|reviewed|dismissed (?:a|their|[a-z0-9-]{1,39}'s) (?:stale )?review)"
    r"((?:[ \t]+on[ \t]|[ \t]*·).{0,200})?"
)
# What the timeline writes after the wording, each part after a `·` (the first may follow
# `on`): when (`Nov 27, 2026, 10:14`, `2024-05-02`, `3 days ago`) and the commit it was on
# (`commit \`a1b2c3d\``). An allow-list: any other words there ('· fix the tests first',
# 'on condition CI passes') are not GitHub's, and the line is not its record.
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[ap]m)?(?:[ \t]?(?:utc|gmt|z))?"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]{0,6}\.?"
_TIMELINE_PART = compile_lazily(
    rf"(?:{_MONTH}[ \t]+\d{{1,2}}(?:,?[ \t]+\d{{4}})?(?:,?[ \t]+(?:at[ \t]+)?{_CLOCK})?"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}(?:[ \tt]{_CLOCK})?|{_CLOCK}"
    r"|\d{1,3}[ \t]+(?:second|minute|hour|day|week|month|year)s?[ \t]+ago|yesterday|today"
    r"|commit[ \t]+`?[0-9a-f]{7,40}`?)"
)
_RECEIPT = compile_lazily(
    r"[✓✔][ \t]+(approved|requested changes to|reviewed) pull request[ \t]+"
    r"[a-z0-9_./-]{0,100}#\d{1,7}"
)
_WORDED_STATE = {
    "approved these changes": _APPROVED,
    "requested changes": _CHANGES,
    "requested changes to": _CHANGES,
    "approved": _APPROVED,
}
# gh pr view: `reviewers: bob (Approved), carol (Changes requested), dave (Requested)`.
_REVIEWERS = compile_lazily(r"[*_`]*reviewers[*_`]*[ \t]*:[ \t]*(.*)")
_LISTED = compile_lazily(rf"{_LOGIN}[ \t]*\(([a-z ]{{1,20}})\)")
_MAX_LINE = 400
_GITHUB_STATES = frozenset({_APPROVED, _CHANGES, "commented", "dismissed", "pending", "requested"})
# Words before "approved these changes" that are no reviewer ('Nobody approved these changes').
_NOT_A_LOGIN = frozenset(
    {
        "not",
        "never",
        "no",
        "nobody",
        "none",
        "who",
        "they",
        "we",
        "i",
        "you",
        "he",
        "she",
        "it",
        "someone",
        "anyone",
        "everyone",
        "has",
        "have",
        "had",
        "was",
        "is",
        "were",
        "be",
        "been",
    }
)


@dataclass(frozen=True, slots=True)
class _Review:
    at: int
    """Line index it is written on."""
    reviewer: str | None
    state: str
    """Lower-case GitHub state (`approved`, `changes_requested`, `commented` …)."""
    when: str | None = None
    body: str = ""


# What `gh pr view --json` says beside the review decision: the pull request's merge state,
# whether it merges cleanly, and its checks. Only GitHub's own values are read.
_MERGE_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`\"]*(mergestatestatus|merge[ _]state[ _]status|mergeable)[*_`\"]*"
    r"[ \t]*:[ \t]*[*_`\"]*([a-z_]+)[*_`\"]*[ \t,]*",
    re.IGNORECASE,
)
_MERGES = frozenset({"clean", "has_hooks", "mergeable"})
_CHECKS_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`\"]*(statuscheckrollup|checks|status[ _]checks)[*_`\"]*[ \t]*:(.*)",
    re.IGNORECASE,
)
_CHECK_FAILED = compile_lazily(
    r"(?<![a-z_])(?:failure|failed|error|cancelled|timed_out|action_required|startup_failure|"
    r"stale|pending|in_progress|queued)(?![a-z_])",
    re.IGNORECASE,
)
_CHECK_PASSED = frozenset({"success", "neutral", "skipped", "completed", "expected"})


def recognise(doc: Doc) -> Recognised | None:
    """The reviews that count as verdict fields, or None when there is no review state.
    Beside them, a merge state other than CLEAN (BLOCKED, DIRTY, UNSTABLE, BEHIND …),
    `mergeable: CONFLICTING` or a check that did not succeed is a field that does not
    approve: GitHub would not merge the pull request as it stands."""
    record = _json_reviews(doc)
    if record is not None:
        return record
    reviews = _line_reviews(doc)
    decisions = line_fields(doc, _REVIEW_DECISION, _decision_field, name=NAME, max_chars=80)
    if not reviews and decisions is None:
        return None
    sites, superseded = _sites(doc, reviews)
    view, checks_failing = _pr_view(doc) if reviews else (frozenset[int](), None)
    if checks_failing is not None:
        why = "gh pr view says the pull request's checks did not all pass"
        line = doc.lines[checks_failing]
        sites.append(field_site(checks_failing, line, Decision.FIXES, dialect=NAME, reason=why))
    command = frozenset(i for i, line in enumerate(doc.lines) if line.live and saved_with(line.raw))
    pushed = frozenset(i for i, line in enumerate(doc.lines) if line.live and _pushed(line.raw))
    accounted = frozenset(r.at for r in reviews) | superseded | view | command | pushed
    found = Recognised(name=NAME, sites=tuple(sites), accounted=accounted)
    merge = line_fields(doc, _MERGE_FIELD, _merge_decision, name=NAME, max_chars=80)
    checks = line_fields(doc, _CHECKS_FIELD, _checks_decision, name=NAME, max_chars=2000)
    if decisions is not None:
        found = _joined(found, decisions)
    return with_objections(found, merge, checks)


# `gh pr view`'s own lines around its `Reviewers:` line: the title (`Add retry #412`) over
# the state line (`Open • alice wants to merge 3 commits into main from retry • 2 hours
# ago`), the diff and checks line (`+48 -6 • ✓ Checks passing`) and the footer. Each in the
# words gh writes and nothing more: these lines are accounted for, so hidden from every
# other reader, and a state line that took any text (`Open • do not merge: …`) hid a no.
_VIEW_STATE = compile_lazily(
    r"(?:open|closed|merged|draft) • \S{1,100} (?:wants to merge|merged) \d{1,6} commits? "
    r"into \S{1,200} from \S{1,200}(?: • [a-z0-9 ]{1,40} ago)?"
)
_VIEW_DIFF = compile_lazily(r"\+\d{1,7} -\d{1,7}(?: • (.{1,100}))?")
_VIEW_FOOTER = compile_lazily(r"view this pull request on github: https?://\S{1,300}")
_VIEW_TITLE = compile_lazily(r".{1,300}[ \t](?:[a-z0-9_.-]{1,100}/[a-z0-9_.-]{1,100})?#\d{1,7}")


def _pr_view(doc: Doc) -> tuple[frozenset[int], int | None]:
    """The lines of `gh pr view`'s frame, and the diff line when its checks did not pass."""
    found: set[int] = set()
    failing: int | None = None
    # shown lines: the prose heuristics may take `× 1/3 checks failing` for an instruction
    shown = [
        (i, norm(line.raw).strip())
        for i, line in enumerate(doc.lines)
        if (line.live or line.instruction_like) and not line.blank
    ]
    for (index, text), (_, below) in zip(shown, [*shown[1:], (-1, "")], strict=True):
        diff = _VIEW_DIFF.fullmatch(text)
        title = _VIEW_TITLE.fullmatch(text) and _VIEW_STATE.fullmatch(below)
        if _VIEW_STATE.fullmatch(text) or _VIEW_FOOTER.fullmatch(text) or title:
            found.add(index)
        elif diff is not None:
            found.add(index)
            checks = diff.group(1) or ""
            passing = "checks passing" in checks or not checks
            failing = failing if passing else index
    return frozenset(found), failing


def _joined(found: Recognised, decisions: Recognised) -> Recognised:
    return Recognised(
        name=NAME,
        sites=tuple(sorted(found.sites + decisions.sites, key=lambda s: s.index)),
        accounted=found.accounted | decisions.accounted,
    )


# --------------------------------------------------------------------------- lines


def _line_reviews(doc: Doc) -> list[_Review]:
    reviews: list[_Review] = []
    author: str | None = None
    table: list[tuple[int, str]] = []  # the rows of the table being read
    for index, line in enumerate(doc.lines):
        text = norm(line.raw).strip() if line.live and len(line.raw) <= _MAX_LINE else ""
        if text.startswith("|"):
            table.append((index, text))
            continue
        reviews.extend(_table_reviews(table))
        table = []
        if not text:
            continue
        named = _AUTHOR.fullmatch(text)
        if named is not None:
            author = named.group(1)
            continue
        state = _STATE.fullmatch(text)
        if state is not None:
            reviews.append(_Review(index, author, _state(state.group(1))))
            author = None
            continue
        by = _REVIEW_BY.fullmatch(text)
        if by is not None:
            author = by.group(1)
            continue
        reviews.extend(_one_line(index, text))
    reviews.extend(_table_reviews(table))
    return sorted(reviews, key=lambda r: r.at)


def _one_line(index: int, text: str) -> list[_Review]:
    """The reviews a line that is not a field states: [] when it states none. What follows a
    review's state and date on its line (`— "Thanks, LGTM."`) is its body."""
    line = _REVIEW_LINE.fullmatch(text)
    if line is not None and _is_login(line) and line.group(3) not in _NOT_A_LOGIN:
        body = (line.group(6) or "").strip(' \t"“”')
        return [_Review(index, line.group(3), _state(line.group(5)), body=body)]
    worded = _WORDED.fullmatch(text)
    if worded is not None and worded.group(1) not in _NOT_A_LOGIN and _timeline(worded.group(3)):
        return [_Review(index, worded.group(1), _state(worded.group(2)))]
    receipt = _RECEIPT.fullmatch(text)
    if receipt is not None:
        return [_Review(index, None, _state(receipt.group(1)))]
    listed = _REVIEWERS.fullmatch(text)
    if listed is not None:
        entries = [e.strip() for e in listed.group(1).split(",") if e.strip()]
        matches = [_LISTED.fullmatch(e) for e in entries]
        if entries and all(m is not None for m in matches):
            return [_Review(index, m.group(1), _state(m.group(2))) for m in matches if m]
    return []


# The timeline's record of a push between reviews: `**dev-agent** pushed 2 commits · …`.
_PUSHED = compile_lazily(rf"[*_`]*{_LOGIN}[*_`]*[ \t]+pushed \d{{1,4}} commits?(.{{0,200}})")


def _pushed(raw: str) -> bool:
    """A timeline line of a push, with nothing after it but the timeline's own parts."""
    if len(raw) > _MAX_LINE:
        return False
    found = _PUSHED.fullmatch(norm(raw).strip())
    return found is not None and found.group(1) not in _NOT_A_LOGIN and _timeline(found.group(2))


def _timeline(tail: str | None) -> bool:
    """The text after a timeline wording is GitHub's own (`_TIMELINE_PART`): nothing, or
    parts that each say when or on which commit."""
    if tail is None:
        return True
    parts = tail.split("·")
    first = parts[0].strip()
    if first.startswith("on "):
        parts[0] = first[len("on ") :]
    elif first:
        return False
    else:
        parts = parts[1:]
    return all(_TIMELINE_PART.fullmatch(p.strip(" \t,")) is not None for p in parts)


def _is_login(line: re.Match[str]) -> bool:
    """A login is told from a word by its '@' (or a `Review by` before it) or a jq row's tab:
    a heading `### Security: APPROVED` names a part of the review, not a reviewer."""
    return bool(line.group(2)) or "\t" in line.group(4)


def _table_reviews(rows: list[tuple[int, str]]) -> list[_Review]:
    """A review table: its header names a reviewer and a state column, and every body row
    holds one of GitHub's states (a table of other statuses is not GitHub's record)."""
    if len(rows) < 3:
        return []
    header = _cells(rows[0][1])
    who = _column(header, ("reviewer", "author", "user", "login"))
    # GitHub's word for it: a `Status` column is any tool's table of parts and stages
    what = _column(header, ("state", "review state"))
    if who is None or what is None:
        return []
    reviews = []
    for index, text in rows[2:]:
        cells = _cells(text)
        state = _state(cells[what]) if max(who, what) < len(cells) else ""
        if state not in _GITHUB_STATES:
            return []
        reviews.append(_Review(index, cells[who].lstrip("@") or None, state))
    return reviews


def _cells(row: str) -> list[str]:
    return [c.strip(" \t*_`") for c in row.strip().strip("|").split("|")]


def _column(cells: list[str], names: tuple[str, ...]) -> int | None:
    return next((i for i, c in enumerate(cells) if c in names), None)


def _state(word: str) -> str:
    """A state as GitHub spells it in lower case (`Changes requested` → `changes_requested`);
    a word outside GitHub's states is kept, and counts as no verdict."""
    word = " ".join(word.lower().replace("_", " ").split())
    return _WORDED_STATE.get(word, word.replace(" ", "_"))


# --------------------------------------------------------------------------- JSON


def _json_reviews(doc: Doc) -> Recognised | None:
    """A document that is GitHub's JSON: its reviews and review decision, or None when it
    is not (JSON holding no review state)."""
    record = json_record(doc)
    if record is None:
        return None
    reviews: list[_Review] = []
    fields: list[tuple[int, str, str]] = []  # (line, key, value) beside the reviews
    for index, value in record.values:
        objects = objects_in(value)
        if objects is None:
            return None
        for obj in objects:
            review = _json_review(index, obj)
            if review is not None:
                reviews.append(review)
            fields.extend((index, key, text) for key, text in _json_fields(obj))
        fields.extend(
            (index, "unknown", key) for key, v in verdict_keys(objects) if not _known(key, v)
        )
    if not reviews and not any(key == "reviewdecision" for _, key, _ in fields):
        return None
    if reviews and all(r.when for r in reviews):
        reviews = _in_time_order(reviews)
    sites, _ = _sites(doc, _unique(reviews))
    sites.extend(_json_field_sites(doc, fields))
    return Recognised(name=NAME, sites=tuple(sites), accounted=record.lines, whole=record.whole)


def _in_time_order(reviews: list[_Review]) -> list[_Review]:
    """`reviews` by the instant each was submitted: a time with an offset
    (`2026-11-20T09:30:00-02:00`) is that instant in UTC, so it is not read as earlier than
    `10:00:00Z` because its text sorts first. When a time does not read as an instant with
    a zone, the times are compared as text (GitHub writes them all in UTC, `…Z`)."""
    instants = [_instant(r.when or "") for r in reviews]
    known = [at for at in instants if at is not None]
    if len(known) == len(reviews):
        order = sorted(range(len(reviews)), key=lambda i: known[i])
        return [reviews[i] for i in order]
    return sorted(reviews, key=lambda r: r.when or "")


def _instant(when: str) -> datetime | None:
    """The UTC instant an ISO 8601 time with a zone names (`Z` or an offset), or None."""
    # lazy: `mergegate parse` does not load datetime at start-up (test_startup_imports)
    from datetime import UTC, datetime  # noqa: PLC0415

    try:
        at = datetime.fromisoformat(when.strip())
    except ValueError:
        return None
    return at.astimezone(UTC) if at.tzinfo is not None else None


def _json_review(index: int, obj: dict[str, object]) -> _Review | None:
    state = obj.get("state")
    author = obj.get("author", obj.get("user"))
    if state is None and author is None:
        return _payload_review(index, obj)
    if isinstance(author, str):  # a jq projection: `{user: .user.login, state: .state}`
        author = {"login": author}
    if not isinstance(state, str) or not isinstance(author, dict):
        return None
    login = author.get("login")
    when = obj.get("submittedAt", obj.get("submitted_at"))
    body = obj.get("body")
    return _Review(
        index,
        login if isinstance(login, str) else None,
        _state(state),
        when if isinstance(when, str) else None,
        body if isinstance(body, str) else "",
    )


# The request body of GitHub's "create a review" API (`POST …/pulls/N/reviews`, what an
# agent submits): its keys, its inline comments' keys, and what each `event` states.
_PAYLOAD_KEYS = frozenset({"commit_id", "body", "event", "comments"})
_PAYLOAD_COMMENT_KEYS = frozenset(
    {"path", "line", "side", "start_line", "start_side", "position", "body", "subject_type"}
)
_EVENTS = {"approve": _APPROVED, "request_changes": _CHANGES, "comment": "commented"}


def _payload_review(index: int, obj: dict[str, object]) -> _Review | None:
    """The review a "create a review" request body submits, or None when the object is not
    one (a key the API does not take, an inline comment of another shape). Its body and every
    inline comment's body are the review's text, read like text after an approval."""
    event = obj.get("event")
    comments = obj.get("comments", [])
    if not isinstance(event, str) or not isinstance(comments, list):
        return None
    if not set(obj) <= _PAYLOAD_KEYS:
        return None
    texts = [obj.get("body")]
    for comment in comments:
        if not isinstance(comment, dict) or not set(comment) <= _PAYLOAD_COMMENT_KEYS:
            return None
        texts.append(comment.get("body"))
    state = _EVENTS.get(event.lower(), event.lower())  # any other value is no GitHub state
    body = "\n\n".join(t for t in texts if isinstance(t, str) and t.strip())
    return _Review(index, None, state, None, body)


def _unique(reviews: list[_Review]) -> list[_Review]:
    """`latestReviews` repeats reviews `reviews` holds: each review once."""
    seen: set[tuple[str | None, str, str | None, str]] = set()
    unique = []
    for review in reviews:
        key = (review.reviewer, review.state, review.when, review.body)
        if review.when is None or key not in seen:
            unique.append(review)
        seen.add(key)
    return unique


def _json_fields(obj: dict[str, object]) -> list[tuple[str, str]]:
    """The review decision, merge state and check results an object holds."""
    found = []
    for key in ("reviewDecision", "mergeStateStatus", "mergeable", "mergeable_state"):
        value = obj.get(key)
        if isinstance(value, bool):  # the REST API's `"mergeable": false`
            value = "mergeable" if value else "conflicting"
        if isinstance(value, str) and value:
            found.append((key.lower(), value.lower()))
    if "__typename" in obj or "conclusion" in obj:  # a check of statusCheckRollup
        result = obj.get("conclusion") or obj.get("state")
        found.append(("check", result.lower() if isinstance(result, str) else "unknown"))
    return found


# GitHub's own keys that hold a state, with the values GitHub writes there (a review's, a
# pull request's, a check's); any other value, or another key of a verdict's name, is not
# GitHub's record (`_record.verdict_keys`): it keeps the document from approving.
_KNOWN_VALUES = {
    "state": frozenset(
        {*_GITHUB_STATES, "open", "closed", "merged", "success", "failure", "error", "expected"}
    ),
    "status": frozenset({"completed", "in_progress", "queued", "waiting", "pending", "requested"}),
}
_READ_KEYS = frozenset({"reviewdecision", "mergestatestatus", "mergeable", "conclusion"})
_NEUTRAL_KEYS = frozenset(
    {
        "submittedat",
        "submitted_at",
        "statuscheckrollup",
        "mergedat",
        "merged_at",
        "mergedby",
        "merged_by",
        "mergecommit",
        "merge_commit_sha",
        "potentialmergecommit",
        "automergerequest",
        "merged",
        "mergeable_state",
        "state_reason",
        "statuses_url",
        "maintainercanmodify",
        "maintainer_can_modify",
        "startedat",
        "completedat",
        "detailsurl",
    }
)


def _known(key: str, value: object) -> bool:
    low = key.lower()
    if low in _READ_KEYS or low in _NEUTRAL_KEYS:
        return True
    known = _KNOWN_VALUES.get(low)
    return known is not None and isinstance(value, str) and _state(value) in known


def _json_field_sites(doc: Doc, fields: list[tuple[int, str, str]]) -> list[Site]:
    sites = []
    for index, key, value in fields:
        if key == "unknown":
            why = f"the record's key '{value[:40]}' is not one GitHub writes"
            sites.append(
                field_site(index, doc.lines[index], Decision.MALFORMED, dialect=NAME, reason=why)
            )
            continue
        if key == "reviewdecision":
            decision = Decision.APPROVE if value == _APPROVED else _not_approved(value)
            why = f"the review decision is {value.upper()}"
        elif key == "check":
            decision = Decision.APPROVE if value in _CHECK_PASSED else Decision.FIXES
            why = f"a check of the pull request is {value.upper()}"
        else:
            decision = Decision.APPROVE if value in _MERGES else Decision.FIXES
            why = f"GitHub's {key} is {value.upper()}"
        if decision is not Decision.APPROVE or key == "reviewdecision":
            sites.append(field_site(index, doc.lines[index], decision, dialect=NAME, reason=why))
    return sites


def _not_approved(value: str) -> Decision:
    return Decision.FIXES if value == _CHANGES else Decision.MALFORMED


# --------------------------------------------------------------------------- counting


def _sites(doc: Doc, reviews: list[_Review]) -> tuple[list[Site], frozenset[int]]:
    """The sites of the reviews that count, and the lines of the older reviews they
    supersede (with the section each heads)."""
    last: dict[str, int] = {}  # reviewer → position of their last APPROVED/CHANGES_REQUESTED
    for number, review in enumerate(reviews):
        if review.state in (_APPROVED, _CHANGES):
            last[review.reviewer.lower() if review.reviewer else f"#{number}"] = number
    if not last:
        if not reviews:
            return [], frozenset()
        review = reviews[-1]
        why = f"the GitHub review state {review.state.upper()} is no verdict"
        line = doc.lines[review.at]
        return [field_site(review.at, line, Decision.MALFORMED, dialect=NAME, reason=why)], (
            frozenset()
        )
    counted = sorted(last.values())
    waiting = _waiting(doc, reviews)
    older = {
        number
        for number, r in enumerate(reviews)
        if r.reviewer is not None and number < last.get(r.reviewer.lower(), -1)
    }
    superseded = frozenset(i for n in older for i in _section_of(doc, reviews[n].at))
    sites = [_site(doc, reviews[n]) for n in counted]
    # A comment after the last review that counts (another reviewer's, or a later one of
    # the same reviewer) is read like text after the approval: it can still say no. One
    # before it is an earlier review: the last review decides.
    sites.extend(
        site
        for n, r in enumerate(reviews)
        if n > counted[-1] and n not in older
        for site in _comment(doc, r)
    )
    return sorted([*sites, *waiting], key=lambda site: site.index), superseded


def _waiting(doc: Doc, reviews: list[_Review]) -> list[Site]:
    """A reviewer whose last word is a review still pending or requested: the review has
    not happened, so nothing decides for them yet (fail closed)."""
    latest: dict[str, _Review] = {}
    for review in reviews:
        if review.reviewer is not None and review.state not in ("commented", "dismissed"):
            latest[review.reviewer.lower()] = review
    return [
        field_site(
            r.at,
            doc.lines[r.at],
            Decision.MALFORMED,
            dialect=NAME,
            reason=f"the review of {r.reviewer} is still {r.state.upper()}",
        )
        for r in latest.values()
        if r.state in ("pending", "requested")
    ]


def _comment(doc: Doc, review: _Review) -> list[Site]:
    problem = after_approval(review.body) if review.body.strip() else None
    if problem is None:
        return []
    decision, held = problem
    by = f" ({review.reviewer})" if review.reviewer else ""
    why = f"a {review.state.upper()} review{by} beside the approval: {held}"
    return [field_site(review.at, doc.lines[review.at], decision, dialect=NAME, reason=why)]


def _site(doc: Doc, review: _Review) -> Site:
    by = f" ({review.reviewer})" if review.reviewer else ""
    line = doc.lines[review.at]
    if review.state == _CHANGES:
        why = f"the GitHub review state is CHANGES_REQUESTED{by}"
        return field_site(review.at, line, Decision.FIXES, dialect=NAME, reason=why)
    why = f"the GitHub review state is APPROVED{by}"
    problem = after_approval(review.body) if review.body.strip() else None
    if problem is not None:
        decision, held = problem
        return field_site(
            review.at, line, decision, dialect=NAME, reason=f"{why}; its body: {held}"
        )
    return field_site(review.at, line, Decision.APPROVE, dialect=NAME, reason=why)


def _section_of(doc: Doc, at: int) -> range:
    """A superseded review's lines: its heading's section up to the next heading, or its
    own line when it is no heading."""
    if not doc.lines[at].heading_level:
        return range(at, at + 1)
    end = next(
        (i for i in range(at + 1, len(doc.lines)) if doc.lines[i].heading_level),
        len(doc.lines),
    )
    return range(at, end)


def _merge_decision(field: re.Match[str]) -> tuple[Decision, str]:
    value = field.group(2).lower()
    if value in _MERGES:
        return Decision.APPROVE, f"{field.group(1)} is {value.upper()}"
    return Decision.FIXES, f"GitHub's {field.group(1)} is {value.upper()}: it would not merge"


def _checks_decision(field: re.Match[str]) -> tuple[Decision, str]:
    failed = _CHECK_FAILED.search(field.group(2))
    if failed is None:
        return Decision.APPROVE, "every check succeeded"
    return Decision.FIXES, f"a check of the pull request is {failed.group(0).upper()}"


def _decision_field(field: re.Match[str]) -> tuple[Decision, str]:
    value = field.group(1).lower()
    if value == _APPROVED:
        return Decision.APPROVE, "the review decision is APPROVED"
    return _not_approved(value), f"the review decision {value.upper()} is not an approval"
