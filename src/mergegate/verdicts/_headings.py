"""What a heading says about the lines under it: a verdict section, an example, a new round
of a multi-round document, one part of the change, or something that is not the change at
all (an alternative, an option, a finding)."""

from __future__ import annotations

import functools
import re
from enum import IntEnum
from typing import NamedTuple

from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import has_lookalike
from mergegate.verdicts._vocab import LabelKind, clean_value, hits, label_kind, phrases

__all__ = ["HeadingKind", "RoundMark", "heading_kind"]

_EXAMPLE_HEADING_WORDS = (
    "example", "template", "sample", "format", "instruction", "prompt", "expected output",
    "expected behavior", "expected behaviour", "anti-pattern", "how to", "usage", "test scenario",
    "示例", "模板", "例", "テンプレート", "예시", "템플릿", "ejemplo", "plantilla", "exemplo",
    "modelo", "exemple", "modèle",
)  # fmt: skip
# Whole words ('Formatting & Style' is not a 'format' heading); CJK words anywhere.
_EXAMPLE_HEADING = compile_lazily(
    r"(?<![a-z])(?:"
    + "|".join(re.escape(w) for w in _EXAMPLE_HEADING_WORDS if w.isascii())
    + r")s?(?![a-z])|"
    + "|".join(re.escape(w) for w in _EXAMPLE_HEADING_WORDS if not w.isascii())
)
# Headings whose verdicts are about something other than the change: 'Alternative 2',
# 'Decision 3: ...', 'Finding #4'. Their verdicts never decide, either way.
_LOCAL_HEADING = compile_lazily(
    r"(?:alternative|option|approach|candidate|proposal|variant|finding|issue|item|decision|"
    r"criterion|requirement|risk)s?(?:[ \t]*(?:\d|#)|[ \t]+[a-z](?![a-z]))|"
    r"(?:alternative|option|approach|candidate|proposal|variant)s?(?![a-z])"
)
# A finding written as a sub-heading: '### I1. Race', '#### C2 — Leak', '### F001 [P1] …'.
_FINDING_ID = compile_lazily(r"[a-z]{1,3}-?\d{1,4}(?:[.):—–]|[ \t]|$)")
# Headings that scope a verdict to one part of the change: 'File: a.py', 'Track B'. A part's
# no is the document's no (parts of one review do not outvote each other); a part's yes is
# never enough on its own.
_PART_HEADING = compile_lazily(
    r"(?:file|module|component|function|class|package|service|crate|track|area|part|stage|"
    r"layer|scope)(?:[ \t]*[:#]|[ \t]+[a-z0-9](?![a-z])|[ \t]*\d)"
)
# Headings that open a new round of a multi-round document: what came before is superseded.
# A new round needs a heading that names a new review. Strong words count anywhere in the
# heading; a round number ('Round 2') or a weak first word ('Update', 'Edit') only when the
# rest of the heading names nothing but the review itself ('Round-2 verdict', 'Update'):
# 'Updated files', 'Edit history', 'Round 2 notes' are sections, not reviews.
_ROUND_HEADING = compile_lazily(
    r"(?<![a-z])(?:re[ -]?review|"
    r"re[ -]?check|re[ -]?verif|re[ -]?assess|re[ -]?evaluat|(?:second|third|fourth|"
    r"final|follow[ -]?up|another) (?:pass|round|look|review|iteration)|addendum|"
    r"fix(?:es)? (?:confirmation|verified|verification|review)|"
    r"second review)|"
    r"第.{1,3}轮|复审|再审|复查|追加审查|补充审查|再レビュー|再确认|追记|再検证|재검토|재리뷰|"
    r"segunda revisi|nueva revisi|deuxième (?:passe|revue)|nachtrag|zweite runde|erneute prüfung"
)
# When a round ran: after the fix. It names a new review only beside words about the review
# ('Post-fix review', 'Findings (post-fix)', 'After the fix') or a part of the change (a
# scoped round, `_round_part`); beside the name of a record it dates that record, which is a
# section of the same review ('Checklist post-fix', 'Notes after the fix').
_FIX_ROUND = compile_lazily(
    r"(?<![a-z])(?:after (?:the )?fix(?:es|ing)?|post[ -]?fix(?:es)?)(?![a-z])"
)
_ROUND_NUMBER = compile_lazily(
    r"(?<![a-z])round[ \t-]*(?:\d+|[ivx]+\b|one|two|three|four|five|final)(?![a-z0-9])"
)
_ROUND_FIRST_WORD = compile_lazily(
    r"(?:update|updated|edit|edited|follow[ -]?up|iteration[ \t]*\d+|revision[ \t]*\d+|"
    r"pass[ \t]*\d+|更新|업데이트|actualizaci\w*|atualiza\w*|mise à jour|aktualisierung)(?![a-z])"
)
# What may stand beside a round number or a weak first word: words about the review itself.
_ROUND_REST_WORDS = frozenset(
    phrases(
        """review|reviews|verdict|verdicts|result|results|finding|findings|assessment|summary|
feedback|approval|decision|complete|completed|of|the|and|after|on|by|at|since|commit|
commits|push|force|rebase|revision"""
    )
)
# A commit id beside a round number names the revision the round reviews, not a part of the
# change: 'Round 2 (after commit 9f3e2a1)'.
_COMMIT_ID = compile_lazily(r"(?=[0-9a-f]*\d)[0-9a-f]{7,40}")


def _about_the_review(word: str) -> bool:
    """A word that may stand beside a round number: about the review, a number, a commit."""
    return word in _ROUND_REST_WORDS or word.isdigit() or _COMMIT_ID.fullmatch(word) is not None


# What a round heading may name that makes the round a review of one small part, not of the
# whole change: a document, its wording, a typo, a file (`_ROUND_PART_PATH`). Such a
# round does not replace an earlier no (`_round_part`). Not "only", which also narrows a round
# to the fixes it checks ('Re-review — Important Fixes Only'), nor a bare slash
# ('Category/Tag Filter').
_ROUND_PART_WORDS = frozenset(
    phrases(
        """readme|changelog|docs|doc|documentation|typo|typos|wording|spelling|comment|
comments|docstring|docstrings"""
    )
)
# A file: a name with a source, config or manifest extension, a dot-directory path
# (`.github/workflows`), or a build file whose name has no extension (`Dockerfile`).
_ROUND_PART_PATH = compile_lazily(
    r"[\w./-]*\.(?:py|ts|tsx|js|jsx|go|rs|md|java|rb|toml|json|ya?ml|lock|mod|sum|sh|sql|css|"
    r"scss|html|txt|cfg|ini|xml|gradle|kts?|swift|c|h|cpp|hpp|cs|php|tf|env)\b"
    r"|(?<![\w.])\.[a-z][\w-]*/"
    r"|(?<![\w.])(?:docker|make|gem|proc|jenkins|just|rake|brew|vagrant)file\b"
)


def _round_part(low: str) -> bool:
    """A round heading that names one small part ('Follow-up round: CHANGELOG wording',
    'After the fix for the typo in README', 'Addendum (docs commit only)'): the round's yes
    covers that part, as a scope after an answer does (`_scope`), so it replaces no earlier
    no. A round of the fixes or of the review itself ('Re-review after fixes') names none."""
    return (
        any(w in _ROUND_PART_WORDS for w in _WORDS.findall(low))
        or _ROUND_PART_PATH.search(low) is not None
    )


def _opens_round(low: str, bare: str) -> bool:
    """The heading names a new review: a strong round word, or a round number / weak first
    word with nothing else but words about the review, dates and numbers."""
    if _ROUND_HEADING.search(low):
        return True
    fix = _FIX_ROUND.search(low)
    if fix is not None:
        rest = low[: fix.start()] + " " + low[fix.end() :]
        about = all(_about_the_review(word) for word in _WORDS.findall(rest))
        return about or _round_part(low)
    mark = _ROUND_NUMBER.search(bare) or _ROUND_FIRST_WORD.match(bare)
    if mark is None:
        return False
    rest = bare[: mark.start()] + " " + bare[mark.end() :]
    return all(_about_the_review(word) for word in _WORDS.findall(rest))


# What a round heading may name besides the review to be a record the round keeps, not a
# review of its own: 'Re-review method', 'Re-review verification', 'Re-check evidence'.
_ROUND_RECORD_WORDS = frozenset(
    phrases(
        """method|methods|methodology|verification|verifications|evidence|inputs|input|
commands|process|checks|performed|log"""
    )
)


def _round_record(low: str) -> bool:
    """A heading that names the round and one of its records, and nothing else ('Re-review
    method'): under the round's own heading it is a section of that round (`_lines`), not a
    later review; alone it still opens one."""
    found = _ROUND_HEADING.search(low)
    if found is None:
        return False
    rest = _WORDS.findall(low[: found.start()] + " " + low[found.end() :])
    return bool(rest) and all(w in _ROUND_RECORD_WORDS for w in rest)


# Headings that number the reviews of one document: 'Review 1: 2026-07-11 (CONCERNS)',
# 'Iteration 002 — 2026-09-13 — VERDICT: APPROVED', 'Initial verdict: CHANGES_REQUESTED',
# 'Final verdict: APPROVE'. Beside the ordinal only words about the review, dates, numbers
# and the round's own verdict words may stand ('Review 2 notes' is a section).
_ORDINAL_ROUND = compile_lazily(
    r"(?:(?P<word>initial|first|second|third|final)[ \t]+(?:review|verdict|iteration|round|"
    r"assessment|decision)|(?:review|iteration|revis[aã]o|revisi[oó]n|revue|überprüfung)"
    r"[ \t#-]*(?P<num>\d{1,3}))(?![a-z0-9])"
)
_ORDINAL_REST_WORDS = _ROUND_REST_WORDS | {"re", "run", "rerun", "rereview", "scoped"}


class RoundMark(IntEnum):
    """Where a heading that numbers the reviews puts its section among them."""

    NONE = 0
    FIRST = 1
    """'Review 1', 'Initial verdict': the first review; it supersedes nothing."""
    LATER = 2
    """'Review 2', 'Iteration 002': a later review; it supersedes what came before."""
    FINAL = 3
    """'Final verdict', 'Final review': the last review, but only after a numbered one."""


def round_mark(bare: str) -> RoundMark:
    """The ordinal a heading (`bare`, decoration stripped) gives its review, if it numbers one."""
    found = _ORDINAL_ROUND.match(bare)
    if found is None:
        return RoundMark.NONE
    rest = clean_value(bare[found.end() :])
    for hit in reversed(hits(rest)):
        if hit.decision is not None:
            rest = rest[: hit.start] + " " + rest[hit.end :]
    if not all(w in _ORDINAL_REST_WORDS or w.isdigit() for w in _WORDS.findall(rest)):
        return RoundMark.NONE
    word, number = found.group("word"), found.group("num")
    if word == "final":
        return RoundMark.FINAL
    if word in ("initial", "first") or (number is not None and int(number) <= 1):
        return RoundMark.FIRST
    return RoundMark.LATER


_VERDICT_HEADING_WORDS = (
    "verdict", "decision", "conclusion", "assessment", "recommendation", "summary",
    "ready to merge", "merge readiness", "readiness", "final", "overall", "result", "outcome",
    "status",
    "判定", "结论", "总结", "まとめ", "결론", "판정", "요약", "veredicto", "veredito",
    "conclusión", "conclusão", "décision", "résumé",
)  # fmt: skip


# Headings that say their items do not block. A heading that also says the opposite
# ('Required follow-ups before merge', 'Blocking follow-ups') is not one.
_ADVISORY_HEADING = compile_lazily(
    r"(?<![a-z])(?:non[- ]?blocking|advisory|deferred|nice[- ]to[- ]have|optional|out of scope|"
    r"future (?:work|phases?|improvements?|enhancements?)|follow[- ]?ups?|carried forward|"
    r"later phases?|next phases?)(?![a-z])|非阻塞|不阻塞|可选|后続|任意|후속|opcional|optionnel"
)
_BLOCKING_HEADING = compile_lazily(
    r"(?<![a-z])(?:(?<!non )(?<!non-)(?<!non)blocking|blockers?|must|required|critical|"
    r"before (?:merg|releas|ship)\w*)(?![a-z])|(?<![非不])阻塞|必须"
)
_VERDICT_KINDS = (LabelKind.VERDICT, LabelKind.QUESTION, LabelKind.OPINION)
_WORDS = compile_lazily(r"[^\W_]+")


class HeadingKind(NamedTuple):
    """The facts a heading implies for its section."""

    verdict_like: bool
    local: bool
    example: bool
    round: bool
    part: bool
    advisory: bool = False
    """The section says what it holds does not block ('Follow-ups (Advisory, Non-Blocking)',
    'Deferred', 'Nice to have')."""
    mark: RoundMark = RoundMark.NONE
    """The ordinal the heading gives its review ('Review 2', 'Final verdict'), if any."""
    round_record: bool = False
    """The heading names the round and one of its records ('Re-review method'): inside the
    section of a round heading it is that round's section, not a later round."""


@functools.lru_cache(maxsize=4096)  # headings repeat ('### Critical', '## Verdict'): once each
def heading_kind(text: str, low: str, level: int) -> HeadingKind:
    """Classify a heading (`text` as written, `low` normalized) of markdown `level`."""
    bare = _strip_decor(low)
    return HeadingKind(
        # Fail closed: a heading that spells 'Verdict' with look-alikes is not a verdict
        # section, or 'No findings.' under it would approve without an authoritative word.
        verdict_like=not has_lookalike(text) and _verdict_heading(bare),
        local=bool(_LOCAL_HEADING.match(bare) or (level >= 3 and _FINDING_ID.match(bare))),
        example=_EXAMPLE_HEADING.search(_without_change_title(low)) is not None,
        round=_opens_round(low, bare),
        part=bool(_PART_HEADING.match(bare)) or (_opens_round(low, bare) and _round_part(low)),
        advisory=_ADVISORY_HEADING.search(low) is not None
        and _BLOCKING_HEADING.search(low) is None,
        mark=round_mark(bare),
        round_record=_round_record(low),
    )


# A change's title quoted after its reference: '## Review — PR #2315 "Implement usage-based
# billing"', 'MR !12 “Add prompt template”'. The title names the change under review, not the
# section's role: its words ('usage', 'template', 'prompt') make no example section. Only
# after a reference; a heading that is all quotes ('## "Example output"') keeps its words.
_CHANGE_TITLE = compile_lazily(
    r"(?:#\d{1,9}|![\d]{1,9}|(?<![a-z])(?:pr|mr|pull request|merge request|change|commit)"
    r"(?![a-z]))[^\"“”]{0,40}(?:\"[^\"]{1,200}\"|“[^“”]{1,200}”)"
)


def _without_change_title(low: str) -> str:
    """`low` with the quoted titles that follow a change reference dropped (`_CHANGE_TITLE`)."""
    if '"' not in low and "“" not in low:
        return low
    return _CHANGE_TITLE.sub(_reference_only, low)


def _reference_only(found: re.Match[str]) -> str:
    text = found.group(0)
    return text[: min(i for i in (text.find('"'), text.find("“")) if i >= 0)]


def _strip_decor(text: str) -> str:
    """Drop leading numbering, emoji and markup from a heading: '5. ✅ **Verdict**' → 'verdict'."""
    i = 0
    while i < len(text) and not (text[i].isalpha()):
        i += 1
    return text[i:].replace("*", "").replace("`", "").strip()


def _starts_with_any(text: str, words: tuple[str, ...]) -> bool:
    return any(text.startswith(word) for word in words)


def _verdict_heading(text: str) -> bool:
    """'Verdict', 'Conclusion …', or a verdict label in its first words ('10.3 Review
    Decision', 'Merge readiness')."""
    if _starts_with_any(text, _VERDICT_HEADING_WORDS):
        return True
    words = _WORDS.findall(text[:80])
    return any(
        label_kind(" ".join(words[:n])) in _VERDICT_KINDS for n in range(2, min(len(words), 3) + 1)
    )
