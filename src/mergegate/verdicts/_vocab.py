"""Verdict vocabularies: which words decide what, which words qualify an approval.

Matching runs on normalized text (NFKC, case-folded, `_` and markup turned into spaces) with
one literal alternation per table, longest phrase first, bounded by ASCII word edges — linear in
the (already capped) value. Workflow words (completed, resolved, done, fixed) are consumed as
*neutral* so they can never be read as a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from mergegate.decisions import Decision

__all__ = [
    "Hit",
    "LabelKind",
    "clean_value",
    "first_hit",
    "hits",
    "is_clause_end",
    "label_kind",
    "qualifier_of",
]


def _bar(block: str) -> list[str]:
    """Phrases written '|'-separated over several lines."""
    return [p for p in block.replace("\n", "").split("|") if p]


A, F, R, N = Decision.APPROVE, Decision.FIXES, Decision.REJECT, None

_APPROVE = """
approved approve approves approving lgtm looks good to me ack acked ship it shipit passed
accepted accept mergeable merge-ready merge ready ready to merge ready for merge ready to ship
good to merge good to go safe to merge safe to ship ok to merge okay to merge recommend merge
recommend merging recommend approval recommended for merge can be merged can merge
zero findings no findings no issues no issues found pass passes merge go ship proceed yes clean
是 通过 通過 可合并 可以合并 可合入 可以合入 批准 同意合并 准予合并
承認 承认 合格 マージ可 マージ可能
問題なし はい 승인 통과 병합 가능 머지 가능 예 네 aprobado aprobada aprobar apto sí
aprovado aprovada aprovar sim approuvé approuvée accepté acceptée oui validé
"""
_FIXES = """
with fixes fixes required changes requested changes required request changes requested changes
requesting changes needs work needs changes needs fixes needs revision needs revisions
need changes needs rework revise revise and resubmit revision required revisions required
major revisions minor revisions issues found concerns conditional conditionally approved
conditional approval conditional go partially approved partial approval approve with changes
waived 需修改 需要修改 待修复 有条件 条件付き 条件付 要修正 修正が必要 수정 필요 조건부
con cambios requiere cambios cambios solicitados com ressalvas alterações solicitadas
requer alterações avec réserves modifications demandées à corriger
"""
_REJECT = """
no no-go nogo not go not approved not approve disapproved reject rejected rejects fail failed
failing
fails block blocked nack nak nacked do not merge don't merge dont merge not ready
not ready to merge not mergeable not merge-ready cannot merge can't merge must not merge
should not merge not safe to merge denied veto vetoed
否 不是 不通过 不通過 不可合并 不能合并 拒绝 驳回 不合格 却下 否決 不承認 マージ不可 差し戻し いいえ
거절 거부 반려 불합격 병합 불가 아니오 아니요 rechazado rechazada rechazar no aprobado
reprovado reprovada rejeitado não aprovado não rejeté rejetée refusé non approuvé non
"""
# Consumed so that they never count: workflow states and look-alike phrases.
_NEUTRAL = """
completed complete resolved done fixed finished skipped in progress pending review
no blockers no blocking no new no critical not a blocker not blocking pass rate
完成 已完成 完了 완료 是否 但是 不仅 是不是 可能性
"""
# Phrases that make an approval conditional or soft ("Yes, once…", "APPROVED WITH …").
_QUALIFIERS = _bar(
    """
after|once|pending|provided|providing|if|unless|until|subject to|conditional|conditionally|
on condition|as long as|assuming|contingent|but|however|except|before|only when|required|
must be fixed|must fix|should fix|needs to be|needs to address|to be addressed|with fixes|
with changes|with minor|with major|with some|with suggestions|with comments|with caveats|
with concerns|with conditions|with reservations|with warnings|with modifications|
with revisions|with required|with mandatory|with follow-ups|with follow-up|
with the following|with a few|with recommendations|revise|
后|後|条件|待|前提|须|需|修复|조건|후|전제|단|
después de|tras|una vez|siempre que|si|con condiciones|condicional|após|depois de|desde que|
se|après|une fois|sous réserve|à condition
"""
)
# Extras that are explicitly non-blocking; removed before qualifiers are looked for.
_NON_BLOCKING = """
with commendations with commendation with nits with minor nits with notes with praise with kudos
non-blocking non blocking nonblocking not blocking don't block do not block does not block
doesn't block won't block will not block not a blocker no blockers 0 blockers zero blockers
nice-to-have nice to have optional
"""
# Words that are also ordinary verbs/adverbs: they decide only when the clause ends there.
_AMBIGUOUS = frozenset(
    _bar(
        """
yes|no|merge|go|ship|proceed|pass|passes|clean|accept|block|fail|fails|revise|是|否|non|não|
sim|si|sí|oui|예|네|はい|いいえ
"""
    )
)


def _split(block: str) -> tuple[str, ...]:
    """Split a table block into phrases, joining words that form a known multi-word phrase."""
    tokens = block.split()
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for size in (5, 4, 3, 2, 1):
            cand = " ".join(tokens[i : i + size])
            if size == 1 or cand in _KNOWN_MULTI:
                out.append(cand)
                i += size
                break
    return tuple(out)


_KNOWN_MULTI = frozenset(
    _bar(
        """looks good to me|ship it|merge ready|ready to merge|ready for merge|ready to ship|
good to merge|good to go|safe to merge|safe to ship|ok to merge|okay to merge|recommend merge|
recommend merging|recommend approval|recommended for merge|can be merged|can merge|
zero findings|no findings|no issues|no issues found|병합 가능|머지 가능|with fixes|fixes required|
changes requested|changes required|request changes|requested changes|requesting changes|
needs work|needs changes|needs fixes|needs revision|needs revisions|need changes|needs rework|
revise and resubmit|revision required|revisions required|major revisions|minor revisions|
issues found|conditionally approved|conditional approval|conditional go|partially approved|
partial approval|approve with changes|수정 필요|con cambios|requiere cambios|cambios solicitados|
com ressalvas|alterações solicitadas|requer alterações|avec réserves|modifications demandées|
à corriger|not go|not approved|not approve|do not merge|don't merge|dont merge|not ready|
not ready to merge|not mergeable|not merge-ready|cannot merge|can't merge|must not merge|
should not merge|not safe to merge|병합 불가|no aprobado|não aprovado|non approuvé|in progress|
pending review|no blockers|no blocking|no new|no critical|not a blocker|not blocking|pass rate|
subject to|on condition|as long as|only when|must be fixed|must fix|should fix|needs to be|
needs to address|to be addressed|with changes|después de|una vez|siempre que|con condiciones|
depois de|desde que|une fois|sous réserve|à condition|with commendations|with commendation|
with nits|with minor nits|with notes|with praise|with kudos|non blocking|don't block|
do not block|does not block|doesn't block|won't block|will not block|0 blockers|zero blockers|
nice to have"""
    )
)


def _table(block: str, decision: Decision | None) -> dict[str, Decision | None]:
    return dict.fromkeys(_split(block), decision)


_DECIDING: dict[str, Decision | None] = {
    **_table(_NEUTRAL, N),
    **_table(_APPROVE, A),
    **_table(_FIXES, F),
    **_table(_REJECT, R),
}


def _alternation(phrases: list[str]) -> re.Pattern[str]:
    ordered = sorted(set(phrases), key=len, reverse=True)
    body = "|".join(re.escape(p) for p in ordered)
    return re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])")


_DECIDING_RE = _alternation(list(_DECIDING))
_QUALIFIER_RE = _alternation(_QUALIFIERS + [p for p in _DECIDING if _DECIDING[p]])
_NON_BLOCKING_RE = _alternation(list(_split(_NON_BLOCKING)))
_MARKUP = str.maketrans({**{c: " " for c in '*_`~#>[]{}"“”«»「」『』【】'}, "’": "'", "‘": "'"})
_CLAUSE_END = frozenset(".,;:!?()—–-→/|。，；：！？、）")
# After an ambiguous word these still end its clause: 'APPROVED FOR …', 'Yes if …', 'Yes once …'.
_CONTINUATIONS = (
    "to ",
    "for ",
    "with ",
    "on ",
    "as ",
    "in ",
    "and ",
    "if ",
    "once ",
    "after ",
    "pending",
    "provided",
    "unless ",
    "until ",
    "when ",
    "but ",
    "subject to",
    "assuming",
    "但",
    "，",
)


@dataclass(frozen=True, slots=True)
class Hit:
    """A vocabulary phrase found in a value. `decision` is None for neutral words."""

    phrase: str
    decision: Decision | None
    start: int
    end: int

    @property
    def ambiguous(self) -> bool:
        """An ordinary word too ('merge', 'pass', 'no'): decides only at a clause end."""
        return self.phrase in _AMBIGUOUS


class LabelKind(Enum):
    """How much a label says about the whole document, and how its value is read."""

    YESNO = "yesno"
    """'Ready to merge?': the value's first word is the answer."""
    VERDICT = "verdict"
    """'Verdict:', 'Decision:': the first verdict word of the first clause decides."""
    STATUS = "status"
    """'Status:', 'Result:': only a value that starts with a verdict word counts."""


def clean_value(text: str) -> str:
    """Normalize an already NFKC/case-folded value for matching: markup and `_` → spaces."""
    return " ".join(text.translate(_MARKUP).split())


def hits(value: str) -> list[Hit]:
    """All vocabulary phrases in `value` (cleaned), left to right, non-overlapping."""
    return [
        Hit(m.group(0), _DECIDING[m.group(0)], m.start(), m.end())
        for m in _DECIDING_RE.finditer(value)
    ]


def is_clause_end(value: str, end: int) -> bool:
    """True when the clause stops at `end` or continues with 'to …'/'for …' (APPROVED FOR …)."""
    if value[end : end + 1] in ("-", "/") and value[end + 1 : end + 2].isalnum():
        return False  # 'non-accepting', 'pass/fail': part of a word or an alternative
    rest = value[end:].lstrip(" ")
    if not rest or rest[0] in _CLAUSE_END:
        return True
    return rest.startswith(_CONTINUATIONS)


def first_hit(value: str, *, at_start: bool, max_words: int = 6) -> Hit | None:
    """The deciding phrase of a value, or None.

    With `at_start`, the value must begin with it; otherwise it must sit in the first clause
    within `max_words` words. Neutral words (completed, resolved…) stop the search: a value
    that starts with a workflow word is not a verdict. An ambiguous word must end its clause.
    """
    if at_start:
        return _hit_at_start(value)
    clause_end = _first_clause_end(value[:400])
    for hit in hits(value[: clause_end + 1]):
        misplaced = len(value[: hit.start].split()) > max_words
        if hit.start > clause_end or misplaced or hit.decision is None:
            return None
        if not hit.ambiguous or is_clause_end(value, hit.end):
            return hit
    return None


def _hit_at_start(value: str) -> Hit | None:
    match = _DECIDING_RE.match(value)
    if match is None:
        return None
    hit = Hit(match.group(0), _DECIDING[match.group(0)], 0, match.end())
    if hit.decision is None or (hit.ambiguous and not is_clause_end(value, hit.end)):
        return None
    return hit


def _first_clause_end(value: str) -> int:
    """Index of the first sentence/clause break ('. ', ';', '—', ' - ') or len(value)."""
    for i, ch in enumerate(value):
        if ch in ".;。；!！" and (i + 1 == len(value) or value[i + 1] in " \t"):
            return i
        if ch in "—→" or value.startswith(" - ", i):
            return i
    return len(value)


def qualifier_of(value: str, hit: Hit) -> str | None:
    """The phrase that makes an approval conditional or soft, or None when it is unconditional.

    Looks at the whole value except the approving phrase itself, after removing extras that are
    explicitly non-blocking ('with commendations', "doesn't block the merge").
    """
    after = _NON_BLOCKING_RE.sub(" ", value[hit.end :]).lstrip(" -—:")
    if after.startswith("with "):
        return " ".join(after.split()[:3])  # 'APPROVED WITH X' is not an approval
    rest = _NON_BLOCKING_RE.sub(" ", value[: hit.start] + " " + value[hit.end :])
    for match in _QUALIFIER_RE.finditer(rest):
        phrase = match.group(0)
        decision = _DECIDING.get(phrase, F)
        if decision is Decision.APPROVE:
            continue
        return phrase
    return None


# Labels. Values are normalized label texts (see `label_kind`).
_YESNO_LABELS = frozenset(
    _bar(
        """ready to merge|ready for merge|merge-ready|merge ready|mergeable|can merge|ok to merge|
safe to merge|ship it|lgtm|approve|approved|merge|merge?|可合并|是否可合并|能否合并|可否合并|
可以合并吗|合并|マージ可否|マージ|병합 가능 여부|병합 가능|병합|머지|listo para merge|
listo para fusionar|pronto para merge|pronto para merge?|prêt à fusionner|prêt pour merge"""
    )
)
_VERDICT_LABELS = frozenset(
    _bar(
        """verdict|decision|conclusion|recommendation|assessment|judgement|judgment|approval|ruling|
final call|merge decision|review decision|gate decision|overall|final|判定|结论|結論|判断|
审查结论|评审结论|审核结论|决定|결론|판정|결정|최종 판정|veredicto|veredito|decisión|decisão|
conclusión|conclusão|recomendación|recomendação|décision|avis|verdict final"""
    )
)
_STATUS_LABELS = frozenset(
    _bar(
        """status|result|results|outcome|quality|code quality|spec|spec compliance|gate|review|
review result|gate result|状态|结果|結果|状態|ステータス|상태|결과|estado|resultado|statut|
résultat"""
    )
)
_MODIFIERS = frozenset(
    _bar(
        """
overall|final|review|code|pr|gate|merge|one-line|aggregate|consensus|round|re-review|the|my|
our|最终|最終|최종|総合|综合|整体
"""
    )
)


def label_kind(label: str) -> LabelKind | None:
    """Classify a normalized label ('overall verdict', 'ready to merge', 'status') or None."""
    for kind, table in (
        (LabelKind.YESNO, _YESNO_LABELS),
        (LabelKind.VERDICT, _VERDICT_LABELS),
        (LabelKind.STATUS, _STATUS_LABELS),
    ):
        if label in table:
            return kind
    words = label.split()
    if not words or len(words) > 4:
        return None
    if words[0] in ("overall", "final", "最终", "最終", "최종") and len(words) <= 3:
        return LabelKind.VERDICT
    head = [w for w in words[:-1] if not w.rstrip("0123456789-").endswith(("round", "r"))]
    if all(w in _MODIFIERS for w in head):
        return label_kind(words[-1]) if len(words) > 1 else None
    return None
