"""A JSON verdict document of another tool, accounted for key by key (issue 23, deliver 3).

When the whole output is one JSON object without mergegate's `verdict` key
(`{"overall_assessment": "approve", "issues": [...]}`), it is read as a document:

* every verdict key, at any depth (`"approved": true`, `"review": {"verdict": …}`,
  `"final": {"approved": false}`), is a verdict of the review: the worst decides, as parts of
  one review do not outvote each other;
* blocking content: a non-empty blocking key (`"blockers": [...]`), a positive critical count,
  a finding of blocking severity in a findings list;
* and an approval stands only when every other key is *accounted for*: a key from a closed
  list of the places a review writes (prose, praise, advice, findings, metadata), read by what
  that place may carry — prose by the sentence readers (`"comment": "Land only after #412."`
  conditions the approval), advice and findings' text by the blocking readers, metadata not at
  all — or a key whose value is empty. Any other key holding something (`"merge_after"`,
  `"blocked_by"`, `"scope"`, `"required_changes"`) makes the document `malformed`: mergegate
  does not approve what it has not read. An item of a list naming defects (`issues`,
  `findings` …) must carry its grade: an ungraded defect is one the approval did not weigh.

Linear in the object (the walk visits each value once; depth is capped).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mergegate.decisions import Decision
from mergegate.verdicts._answer import read_answer, sentence_problem
from mergegate.verdicts._blocking import text_blocking
from mergegate.verdicts._model import Severity
from mergegate.verdicts._names import prose_of
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import clean_value, label_kind, word_set

__all__ = ["DocumentRead", "read_document"]

_A, _F, _M = Decision.APPROVE, Decision.FIXES, Decision.MALFORMED
_MAX_DEPTH = 6

_BOOL_KEYS = frozenset(
    {"approved", "approve", "lgtm", "ready_to_merge", "merge_ready", "mergeable", "ready"}
)
_BLOCKING_KEYS = frozenset(
    {"blocking_issues", "blockers", "blocking", "critical_issues", "must_fix", "blocking_findings"}
)
_BLOCKING_SEVERITIES = frozenset({"critical", "blocker", "blocking", "p0", "must fix", "must_fix"})


# The places a review writes, by what they may carry.
_PROSE = word_set(
    "summary comment comments note notes reason reasons reasoning rationale explanation "
    "description overview remarks details detail justification status_reason message"
)
_PRAISE = word_set("strengths positives praise highlights what_went_well good")
_ADVICE = word_set(
    "suggestions suggestion nits nit minor optional improvements recommendations follow_ups "
    "followups future tests_suggested next_steps observations"
)
_FINDINGS = word_set("issues findings problems defects comments risks concerns warnings")
# The findings keys that name defects of the change (not risks, concerns or comments, which
# may be ungraded notes beside a soft approval, as in the shared corpus' r030): an item there
# must carry its grade for an approval to stand beside it.
_DEFECTS = word_set("issues findings problems defects")
_GRADE_FIELDS = ("severity", "priority", "level")
_META = word_set(
    "reviewer reviewers review_id id model agent tool timestamp date created_at updated_at "
    "version schema pr pr_number pull_request repo repository branch commit sha head_sha "
    "base_sha author files files_reviewed files_changed confidence score title name url link "
    "tests_run duration"
)
# The fields of one finding (a dict in a findings list): its text is read for blocking words
# only through its severity, the rest describes it.
_FINDING_FIELDS = word_set(
    "title severity priority level file path where location line lines start_line end_line "
    "problem impact fix suggestion note detail details description id category type ref code "
    "message rule status evidence recommendation"
)
_EMPTY_STRINGS = frozenset({"", "none", "n/a", "na", "-", "null"})


@dataclass(frozen=True, slots=True)
class DocumentRead:
    """What a JSON verdict document decides, why, and its blocking content (if any)."""

    decision: Decision
    reason: str
    blocking: str | None = None


def read_document(data: Mapping[str, Any]) -> DocumentRead:
    """The document's decision: its verdict keys' worst; an approval kept only when no
    blocking content and every key is accounted for."""
    # Keys are read case-folded: '"Approved": false' beside '"approved": true' is a no.
    decisions = [
        found for key, value in _walk(data) if (found := _key_decision(key.casefold(), value))
    ]
    if not decisions:
        return DocumentRead(_M, "no verdict key in the JSON object")
    worst = _worst([d for d, _ in decisions])
    what = "; ".join(reason for _, reason in decisions)
    blocking = _blocking(data)
    if worst is not _A or blocking is not None:
        return DocumentRead(worst, what, blocking)
    problem = _unaccounted(data)
    if problem is not None:
        return DocumentRead(problem[0], f"{problem[1]}; {what}")
    return DocumentRead(_A, what)


def _walk(data: Mapping[str, Any], depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of the nested objects (not inside lists: a list's items are
    per-item records, such as a finding's own status)."""
    for key, value in data.items():
        yield key, value
        if isinstance(value, dict) and depth < _MAX_DEPTH:
            yield from _walk(value, depth + 1)


def _key_decision(key: str, value: Any) -> tuple[Decision, str] | None:
    if isinstance(value, bool):
        if key not in _BOOL_KEYS:
            return None
        decision = _A if value else Decision.REJECT
        return decision, f'"{key}": {json.dumps(value)}'
    if not isinstance(value, str):
        return None
    kind = label_kind(key.replace("_", " "))
    if kind is None:
        return None
    answer = read_answer(clean_value(value.casefold()), kind)
    if answer is None:
        return None
    why = f" ({answer.why})" if answer.why else ""
    return answer.decision, f"\"{key}\" says '{answer.phrase}'{why}"


def _is_verdict_key(key: str, value: Any) -> bool:
    return _key_decision(key, value) is not None


def _empty(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().casefold() in _EMPTY_STRINGS
    return value is None or value is False or value == 0 or value in ([], {})


def _blocking(data: Mapping[str, Any]) -> str | None:
    for raw_key, value in _walk(data):
        key = raw_key.casefold()
        if key in _BLOCKING_KEYS and not _empty(value):
            return f'"{key}" is not empty'
        if key in ("critical", "criticals", "p0") and isinstance(value, int) and value > 0:
            return f'"{key}": {value}'
        if key in _FINDINGS and isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and _severe(item):
                    return f'a "{key}" item is {_severe(item)}'
    return None


def _severe(item: Mapping[str, Any]) -> str | None:
    for key in ("severity", "priority", "level"):
        value = item.get(key)
        if isinstance(value, str) and value.casefold() in _BLOCKING_SEVERITIES:
            return value.casefold()
    return None


def _worst(decisions: list[Decision]) -> Decision:
    for decision in (Decision.REJECT, _F, _M):
        if decision in decisions:
            return decision
    return _A


Problem = tuple[Decision, str]


def _unaccounted(data: Mapping[str, Any], depth: int = 0) -> Problem | None:
    """The first key of an approving document that is not accounted for, or None."""
    for key, value in data.items():
        problem = _key_problem(key, value, depth)
        if problem is not None:
            return problem
    return None


def _key_problem(key: str, value: Any, depth: int) -> Problem | None:
    name = key.casefold()
    if _empty(value) or _is_verdict_key(name, value) or name in _META or name in _PRAISE:
        return None
    if isinstance(value, dict) and depth < _MAX_DEPTH and (name in _PROSE or _is_group(value)):
        return _unaccounted(value, depth + 1)
    if (
        name in _FINDINGS
        and isinstance(value, list)
        and (name in _DEFECTS or any(isinstance(v, dict) for v in value))
    ):
        return _findings_problem(key, value)
    if name in _PROSE:
        return _texts_problem(key, value, _prose_problem)
    if name in _ADVICE or name in _FINDINGS:
        return _texts_problem(key, value, _blocking_problem)
    return _M, f'the JSON key "{key[:40]}" holds something mergegate does not read'


def _is_group(value: Mapping[str, Any]) -> bool:
    """An object that groups a review's parts ('"summary": {"overall_assessment": …}'): it
    holds a verdict key of its own."""
    return any(_is_verdict_key(k.casefold(), v) for k, v in value.items())


def _texts_problem(key: str, value: Any, read: Callable[[str], Problem | None]) -> Problem | None:
    """Each string of a value (a string, or a list of strings) read by `read`; any other
    shape is not accounted for."""
    texts = value if isinstance(value, list) else [value]
    for text in texts:
        if not isinstance(text, str):
            return _M, f'the JSON key "{key[:40]}" holds something other than text'
        problem = read(text)
        if problem is not None:
            return problem[0], f'"{key[:40]}": {problem[1]}'
    return None


def _prose_problem(text: str) -> Problem | None:
    """Read as a reason field beside a verdict is (`_block`): the object is the verdict's
    block, so its prose is read like the verdict's own line — normalized, code names taken
    out, sentence by sentence."""
    for sentence in prose_of(norm(text)).replace(". ", ".\n").splitlines():
        if sentence.strip():
            found = sentence_problem(sentence, same_line=True)
            if found is not None:
                return found
    return None


def _blocking_problem(text: str) -> Problem | None:
    found = text_blocking(norm(text))
    return (_F, found) if found is not None else None


def _findings_problem(key: str, items: list[Any]) -> Problem | None:
    """A findings list: strings read for blocking words; objects whose fields are a
    finding's (their severity was read by `_blocking`). Under a key naming defects each
    item must also carry its grade (`_ungraded`)."""
    defects = key.casefold() in _DEFECTS
    for item in items:
        if isinstance(item, str):
            problem = _blocking_problem(item)
        elif isinstance(item, dict):
            extra = next((k for k in item if k.casefold() not in _FINDING_FIELDS), None)
            problem = None if extra is None else (_M, f'a finding field "{extra[:40]}"')
        else:
            problem = (_M, "a finding that is neither text nor an object")
        if problem is None and defects and _ungraded(item):
            problem = (_M, "a defect nobody graded, so the approval did not weigh it")
        if problem is not None:
            return problem[0], f'"{key[:40]}": {problem[1]}'
    return None


# A grade opening a finding's text: '[minor] …', 'Nit: …', 'low - …' (a word or two).
_GRADE_OPENING = compile_lazily(
    r"[ \t*_`\[(]*([^\W\d_][\w ]{0,14}?)[ \t*_`\])]*(?:[:：)\]]|[ \t][—–-][ \t])"
)


def _ungraded(item: Any) -> bool:
    """A finding that says nothing of how much it matters: an object without a grade field,
    or a text that does not open with a grade ('minor: rename the flag')."""
    if isinstance(item, dict):
        return not any(isinstance(item.get(k), str) for k in _GRADE_FIELDS)
    if not isinstance(item, str):
        return False
    opening = _GRADE_OPENING.match(item)
    if opening is None:
        return True
    try:
        Severity.from_word(opening.group(1))
    except ValueError:
        return True
    return False
