"""Verdict vocabularies: closed lists of the words that decide, per language.

Matching runs on normalized text (NFKC, case-folded, markup removed, `_` and a hyphen between
two letters turned into a space: `PASS-WITH-FOLLOWUPS` reads as `pass with followups`,
`needs-work` as `needs work`). Each table is one literal alternation that matches the longest
phrase at a position (written as a prefix tree, `alternation`):

* Latin and Cyrillic phrases are bounded by letters on both sides, so `pass` is not found in
  `passive` and `no` is not found in `now`.
* CJK phrases have no word edges, so they are matched *negation-aware*: a phrase right after
  a negating character (无/不/没/未/非/无/미/불 …) is not that phrase (`无需修改`, "no change
  needed", does not contain the verdict `需修改`), and neither is a phrase followed by a
  negating word (`수정 필요 없음`, "no fix needed").

Workflow words (completed, resolved, done, fixed …) and negated findings (no blockers,
无需修改 …) are consumed as *neutral*, so they can never be read as a verdict. Everything is
linear in the (already capped) value.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import Enum

from mergegate.decisions import Decision
from mergegate.verdicts._patterns import compile_lazily

__all__ = [
    "AMBIGUOUS",
    "FIRST_WORDS",
    "Hit",
    "LabelKind",
    "as_shown",
    "clean_value",
    "first_hit",
    "hits",
    "is_clause_end",
    "label_kind",
    "phrases",
    "word_set",
]

_A, _F, _R = Decision.APPROVE, Decision.FIXES, Decision.REJECT


def phrases(block: str) -> list[str]:
    """Phrases written '|'-separated over several lines, normalized like matched text."""
    return [clean_value(p) for p in block.replace("\n", "").split("|") if p.strip()]


def word_set(words: str) -> frozenset[str]:
    """A closed list of words (a grammatical class, a vocabulary), written as text: one word
    per blank-separated token, taken as written."""
    return frozenset(words.split())


_MARKUP_CHARS = '*_`~#>[]{}"“”«»「」『』【】=\\\u00a0'
_MARKUP = str.maketrans({**{c: " " for c in _MARKUP_CHARS}, "’": "'", "‘": "'"})
# The same, as patterns: `str.translate` looks up every character of a non-ASCII text in the
# table (slow on a long line of emoji); a character class scans it in C.
_MARKUP_CLASS = compile_lazily("[" + re.escape(_MARKUP_CHARS) + "]")
_CURLY_APOSTROPHE = compile_lazily("[’‘]")
# A hyphen (or an underscore, already a space) between two letters joins words of one
# token: 'pass-with-followups', 'needs-work', 'no-go'. Between digits it stays ('5-6').
_JOINER = compile_lazily(r"(?<=[^\W\d_])-(?=[^\W\d_])")


# What a reader does not see of a line: inline HTML tags ('<sub>', '</span>', '<br/>') and a
# link's destination ('[do not merge](https://…)' shows 'do not merge').
_INLINE_HTML = compile_lazily(
    r"</?(?:a|abbr|b|big|br|center|cite|code|del|div|em|font|i|ins|kbd|mark|p|q|s|small|span|"
    r"strong|sub|sup|tt|u)(?:[ \t][^<>]{0,200})?/?>"
)
_LINK_TARGET = compile_lazily(r"\]\([^()\s]{0,2000}(?:[ \t]+\"[^\"]{0,200}\")?\)")


def as_shown(text: str) -> str:
    """`text` without the inline HTML tags and link destinations a reader does not see."""
    if "<" in text:
        text = _INLINE_HTML.sub(" ", text)
    if "](" in text:
        text = _LINK_TARGET.sub("]", text)
    return text


def clean_value(text: str) -> str:
    """Normalize an already NFKC/case-folded value for matching: what is not shown dropped
    (`as_shown`), markup, `_`, `=` and a hyphen between letters become spaces; runs of
    blanks become one space."""
    text = _without_markup(as_shown(text))
    if "-" in text:  # a joiner is a hyphen: the ~1,400 phrases cleaned at import skip the call
        text = _JOINER.sub(" ", text)
    return " ".join(text.split())


def _without_markup(text: str) -> str:
    """`text` with markup made spaces and curly apostrophes straight (`_MARKUP`)."""
    if text.isascii() or len(text) < _LONG_TEXT:
        # ASCII is translated without the lookups; a short text's lookups cost less than
        # two pattern calls (and the vocabularies, cleaned at import, compile no pattern)
        return text.translate(_MARKUP)
    return _CURLY_APOSTROPHE.sub("'", _MARKUP_CLASS.sub(" ", text))


_LONG_TEXT = 80


# --------------------------------------------------------------------------- the tables

_APPROVE = phrases(
    """
approved|approve|approves|lgtm|looks good to me|ack|acked|ship it|shipit|passed|pass|passes|
accepted|accept|mergeable|merge ready|merge-ready|ready to merge|ready for merge|ready to ship|
ready to land|ready to commit|good to merge|good to go|safe to merge|safe to ship|ok to merge|
okay to merge|recommend merge|recommend merging|recommend approval|recommended for merge|
can be merged|can merge|zero findings|no findings|no issues|no issues found|merge|go|ship|
proceed|yes|ready|clean|spec compliant|spec-compliant|
是|通过|可合并|可以合并|可合入|可以合入|可集成|可以集成|批准|同意合并|准予合并|建议合并|同意|
承认|承认|合格|マージ可|マージ可能|问题なし|はい|
승인|통과|병합 가능|머지 가능|예|네|
aprobado|aprobada|aprobar|apto|sí|listo|listo para merge|aceptado|
aprovado|aprovada|aprovar|sim|pronto para merge|aceito|
approuvé|approuvée|accepté|acceptée|oui|validé|validée|prêt à fusionner|
genehmigt|freigegeben|akzeptiert|angenommen|bestanden|ja|
approvato|approvata|accettato|
одобрено|одобрен|принято|да|можно мержить
"""
)
_FIXES = phrases(
    """
with fixes|fixes required|fix required|fix first|fixes first|changes requested|
changes required|changes needed|request changes|requested changes|requesting changes|
request_changes|needs work|needs changes|needs fixes|needs fix|needs fixing|need fix|
need fixes|need changes|needs revision|needs revisions|needs rework|needs attention|
rework required|rework|revise|revise and resubmit|revision required|revisions required|
major revisions|minor revisions|issues found|issues|concerns|conditional|
conditionally approved|conditional approval|conditional go|partially approved|
partial approval|approve with changes|waived|gaps found|gaps|human needed|
human verification needed|human review needed|has findings|not yet|not yet ready|not ready|
not ready to merge|not ready for merge|not merge ready|not until|almost|nearly|casi|quase|
presque|quasi|
needs more work|more work needed|not spec compliant|not spec-compliant|spec non-compliant|
non-compliant|not compliant|
需修改|需要修改|需修复|需要修复|待修复|需修正|需要修正|需改进|需要改进|有条件|有条件通过|
条件通过|修改后合并|修复后合并|退回修改|建议修改|暂不合并|尚未就绪|未就绪|
条件付き|条件付|要修正|修正が必要|要対応|
수정 필요|조건부|보완 필요|
con cambios|requiere cambios|cambios solicitados|cambios requeridos|requiere correcciones|
requiere limpieza|no listo|todavía no|aún no|
com ressalvas|alterações solicitadas|requer alterações|requer correções|não está pronto|ainda não|
avec réserves|modifications demandées|à corriger|pas prêt|pas encore|
änderungen erforderlich|änderungen angefordert|nachbesserung|nicht bereit|noch nicht|
modifiche richieste|
требуются изменения|нужны исправления|не готово|доработать
"""
)
_REJECT = phrases(
    """
no|no go|nogo|not go|not approved|not approve|disapproved|reject|rejected|rejects|
fail|failed|failing|fails|block|blocked|nack|nak|nacked|do not merge|don't merge|dont merge|
do not ship|not mergeable|cannot merge|can't merge|cannot be merged|must not merge|
should not merge|not safe to merge|denied|veto|vetoed|absolutely not|definitely not|
not at all|no way|never|
否|不是|不通过|不可合并|不能合并|不予合并|禁止合并|不可集成|不能集成|不可以集成|不批准|未通过|拒绝|驳回|不合格|
却下|否决|不承认|マージ不可|差し戻し|いいえ|承认不可|承认できない|承认できません|
承认しない|承认しません|合格不可|批准不可|通过不可|
거절|거부|반려|불합격|병합 불가|승인 불가|승인 불가능|아니오|아니요|
rechazado|rechazada|rechazar|no aprobado|no fusionar|bloquear|bloqueado|bloqueada|
bloquer|bloqué|bloquée|blockiert|blockieren|bloccato|bloccare|
reprovado|reprovada|rejeitado|não aprovado|não|
rejeté|rejetée|refusé|non approuvé|non|
abgelehnt|nein|nicht genehmigt|nicht bestanden|
respinto|rifiutato|
отклонено|отклонен|отклонён|нет|не одобрено
"""
)
# Consumed so that they never count: workflow states, negated findings, look-alike phrases.
_NEUTRAL = phrases(
    """
completed|complete|resolved|done|fixed|finished|skipped|in progress|pending review|
review complete|review completed|review ready|ready for review|ready for re review|
no blockers|no blocking|no new|no critical|no change needed|no changes needed|
no fixes needed|no fix needed|not a blocker|not blocking|non blocking|pass rate|
issues fixed|issues resolved|tech debt|no go zone|
完成|已完成|完了|완료|是否|但是|不仅|是不是|可能性|无需修改|无需修复|无需修正|无需更改|
无须修改|不需要修改|不需修改|不用修改|无需修改|没有问题|修正不要|対応不要|
수정 불필요|수정 필요 없음
"""
)
AMBIGUOUS = frozenset(
    phrases(
        """
yes|no|merge|go|ship|proceed|pass|passes|clean|accept|block|fail|fails|revise|ready|
issues|gaps|concerns|rework|never|almost|nearly|casi|quase|presque|quasi|是|否|non|não|sim|
sí|oui|ja|nein|да|нет|
예|네|はい|いいえ|listo|同意
"""
    )
)

_DECIDING: dict[str, Decision | None] = {
    **dict.fromkeys(_NEUTRAL),
    **dict.fromkeys(_APPROVE, _A),
    **dict.fromkeys(_FIXES, _F),
    **dict.fromkeys(_REJECT, _R),
}
# Neutral wins where a phrase is in two tables ('no blockers' beats 'no').
_DECIDING.update(dict.fromkeys(_NEUTRAL))

_LETTER = "a-z0-9à-ÿā-žа-яё"
_NEGATING_BEFORE = "无无不没没未非毋别别미불"
# After the phrase: "not needed" (`修正不要`, `수정 필요 없음`) and "cannot / will not"
# (`承认不可`, `承认できません`, `승인 불가`; folded text): the phrase is negated, not said.
_NEGATING_AFTER = (
    "(?![ \t]?(?:不要|不需要|なし|无し|ない|없음|없다|없습니다|불필요|"
    "不可|不能|できない|できません|しない|しません|불가|불가능|안 됨|안됨))"
)


def _is_cjk(phrase: str) -> bool:
    return not ("a" <= phrase[0] <= "z" or "à" <= phrase[0] <= "ž" or "а" <= phrase[0] <= "ё")


def alternation(words: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for a phrase list: Latin/Cyrillic phrases bounded by letters, CJK phrases
    negation-aware (see the module docstring). The longest phrase that matches at a position
    is the one found (`_prefix_tree`)."""
    latin = [p for p in set(words) if not _is_cjk(p)]
    cjk = [p for p in set(words) if _is_cjk(p)]
    parts = []
    if latin:
        parts.append(rf"(?<![{_LETTER}])(?:{_prefix_tree(latin)})(?![{_LETTER}])")
    if cjk:
        parts.append(rf"(?<![{_NEGATING_BEFORE}])(?:{_prefix_tree(cjk)}){_NEGATING_AFTER}")
    return compile_lazily("|".join(parts) or "(?!)")


_Tree = dict[str, "_Tree"]
_END = ""  # the key of a tree node where a phrase ends


def _prefix_tree(words: list[str]) -> str:
    """The phrases as one pattern that shares their prefixes: `approv(?:ed|es|e)`, not
    `approved|approves|approve`. The regex engine tries every alternative of a flat list at
    every position (0.2 ms for a 50-character clause against the verdict vocabulary, read
    several times per line after an approval); the tree tries one character per level.

    It matches what the flat list, longest phrase first, matches: the phrases that match at
    one position are prefixes of each other, so they lie on one path of the tree, and at each
    node the longer phrases (its children) are tried before the phrase that ends there. When
    the boundary after the longest fails, the engine backtracks to the next longest, as it
    backtracks to the next alternative of the list. Children in sorted order: the pattern's
    text is the same in every process (`_pattern_cache`)."""
    tree: _Tree = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[_END] = {}
    return _tree_pattern(tree)


def _tree_pattern(node: _Tree) -> str:
    branches = []
    for ch, child in sorted(node.items()):
        if ch:
            run, below = _single_path(ch, child)
            branches.append(re.escape(run) + _tree_pattern(below))
    if _END in node:
        branches.append("")  # the phrase that ends here, after every longer one
    if len(branches) == 1:
        return branches[0]
    return f"(?:{'|'.join(branches)})"


def _single_path(ch: str, child: _Tree) -> tuple[str, _Tree]:
    """The characters from `ch` down a chain of nodes with one child and no phrase end, and
    the node where the chain branches or a phrase ends. A chain's text is what one escape per
    node would give (`re.escape` is per character), built with one call instead of one per
    character and level: most of the vocabulary tree's ~2,600 nodes lie on such chains, and
    the tree is built at every import (the start-up of `parse` and the hook, issue 23)."""
    chars = [ch]
    while len(child) == 1 and _END not in child:
        ((ch, child),) = child.items()
        chars.append(ch)
    return "".join(chars), child


_DECIDING_RE = alternation(list(_DECIDING))
_WORD = compile_lazily(r"[^\W\d_][^\W_]*")
FIRST_WORDS = frozenset(
    p[0] if _is_cjk(p) else m.group(0) for p in _DECIDING if (m := _WORD.match(p)) is not None
)
"""The first word of every deciding phrase (the first character of a CJK one): a cheap
test of whether a line could open with a verdict."""
_CLAUSE_END = frozenset(".,;:!?()—–-→/|。，；：！？、）")
# After an ambiguous word these still end its clause: 'APPROVED FOR …', 'Yes if …'. The
# condition check decides what the continuation means.
_CONTINUATIONS = phrases(
    """
to|for|with|on|as|in|and|if|once|after|pending|provided|unless|until|when|but|subject to|
assuming|though|although|however|except|before|but|first|pero|mais|mas|aber|sobald|nachdem|
dès que|quand|cuando|quando|但|，|一旦|后|之后|のち|ただし|但し|하지만|단
"""
)
_CONTINUATION_STARTS = tuple(_CONTINUATIONS)


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
        return self.phrase in AMBIGUOUS


class LabelKind(Enum):
    """How much a label says about the whole document, and how its value is read."""

    QUESTION = "question"
    """'Ready to merge?': the answer must be the first thing after it; no answer is no
    verdict (a question is not an approval)."""
    VERDICT = "verdict"
    """'Verdict:', 'Decision:': the first verdict word of the first clause decides; a value
    with no verdict word is a verdict that says nothing (not an approval)."""
    OPINION = "opinion"
    """'Recommendation:', 'Assessment:', 'Conclusion:': read like a verdict when the value
    holds a verdict word, ignored otherwise (they also label per-finding advice)."""
    STATUS = "status"
    """'Status:', 'Result:': only a value that starts with a verdict word counts."""


def hits(value: str) -> list[Hit]:
    """All vocabulary phrases in `value` (cleaned), left to right, non-overlapping."""
    return [
        Hit(m.group(0), _DECIDING[m.group(0)], m.start(), m.end())
        for m in _DECIDING_RE.finditer(value)
    ]


def is_clause_end(value: str, end: int) -> bool:
    """True when the clause stops at `end` or continues with a word that the condition check
    reads ('APPROVED FOR …', 'Yes, if …')."""
    if value[end : end + 1] in ("-", "/") and value[end + 1 : end + 2].isalnum():
        return False  # 'non-accepting', 'pass/fail': part of a word or an alternative
    rest = value[end:].lstrip(" ")
    if not rest or rest[0] in _CLAUSE_END:
        return True
    if value[end - 1 : end].isascii() and not rest[0].isascii():
        return True  # a Latin word followed by CJK text: 'clean 合并之后再补文档'
    if not rest.startswith(_CONTINUATION_STARTS):
        return False  # one test in C for the usual case: no continuation follows
    return any(rest.startswith(c) and _edge(rest, len(c)) for c in _CONTINUATIONS)


def _edge(text: str, at: int) -> bool:
    return at >= len(text) or not text[at].isalnum() or not text[at - 1].isascii()


def first_hit(value: str, *, at_start: bool, max_words: int = 6) -> Hit | None:
    """The deciding phrase of a value, or None.

    With `at_start`, the value must begin with it; otherwise it must sit in the first clause
    within `max_words` words. Neutral words (completed, resolved…) stop the search: a value
    that starts with a workflow word is not a verdict. An ambiguous word must end its clause.
    """
    if at_start:
        return _hit_at_start(value)
    clause_end = first_clause_end(value[:400])
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


def first_clause_end(value: str) -> int:
    """Index of the first sentence/clause break ('. ', ';', '—', ' - ') or len(value)."""
    for i, ch in enumerate(value):
        if ch in ".;。；!！" and (i + 1 == len(value) or value[i + 1] in " \t"):
            return i
        if ch in "—→" or value.startswith(" - ", i):
            return i
    return len(value)


# --------------------------------------------------------------------------- labels

_QUESTION_LABELS = frozenset(
    phrases(
        """ready to merge|ready for merge|merge ready|merge-ready|mergeable|can merge|ok to merge|
safe to merge|ship it|lgtm|approve|approved|merge|good to merge|can this be merged|
can it be merged|should this be merged|should we merge|is it safe to merge|is this ready|
is it ready to merge|is this ready to merge|ready to ship|ready to land|readiness|
merge readiness|ship readiness|
可合并|是否可合并|能否合并|可否合并|可以合并吗|是否可以合并|合并|マージ可否|マージ|
병합 가능 여부|병합 가능|병합|머지|listo para merge|listo para fusionar|pronto para merge|
prêt à fusionner|prêt pour merge|bereit zum mergen|bereit zum merge|готово к слиянию"""
    )
)
_VERDICT_LABELS = frozenset(
    phrases(
        """verdict|ruling|final call|merge decision|review decision|
gate decision|approval decision|final verdict|overall verdict|review verdict|
go/no-go|go / no-go|go/no-go decision|go / no-go decision|ship/no-ship|pass/fail|
ship decision|release decision|launch decision|
判定|结论|裁定|定级|评级|결론|판정|
veredicto|dictamen|veredito|parecer|verdict final|urteil|verdetto|вердикт|заключение|
gesamturteil|endurteil|veredicto final|veredito final|verdetto finale|giudizio|sign-off|
判定结果|审查判定|종합 판정"""
    )
)
_OPINION_LABELS = frozenset(
    phrases(
        """recommendation|assessment|conclusion|approval|overall|final|overall assessment|
decision|judgement|judgment|判断|决定|결정|decisión|decisão|décision|entscheidung|decisione|
решение|
final recommendation|overall recommendation|overall conclusion|final assessment|
建议|意见|结论建议|评価|総评|권고|추천|recomendación|conclusión|recomendação|conclusão|avis|
conclusion finale|recommandation|fazit|empfehlung|bewertung|esito|raccomandazione|итог|
рекомендация|оценка|
gesamtbewertung|evaluación|evaluación final|avaliação|avaliação final|avis final|
valutazione|valutazione finale|итоговая оценка|评价|总评|의견|총평"""
    )
)
_STATUS_LABELS = frozenset(
    phrases(
        """status|state|result|results|outcome|quality|code quality|spec|spec compliance|gate|
review|review result|gate result|review status|endergebnis|
spec verdict|quality verdict|code quality verdict|spec compliance verdict|
ergebnis der prüfung|prüfergebnis|
规格符合性|规格合规性|规范符合性|规格|代码质量|质量|仕様准拠|仕様适合|コード品质|品质|
사양 준수|코드 품질|품질|
状态|结果|ステータス|상태|결과|estado|resultado|statut|résultat|ergebnis|stato|
статус|результат"""
    )
)
_MODIFIERS = frozenset(
    phrases(
        """
overall|final|review|code|pr|gate|merge|one-line|aggregate|consensus|round|re-review|the|my|
our|executive|summary|task|implementation|change|patch|diff|plan|
最终|최종|総合|综合|整体|総体|总体|本次|审查|评审|审核|审批|代码|合并|レビュー|종합|리뷰|
final|general|geral|globale|gesamt|общий|итоговый
"""
    )
)
_KINDS = (
    (LabelKind.QUESTION, _QUESTION_LABELS),
    (LabelKind.VERDICT, _VERDICT_LABELS),
    (LabelKind.OPINION, _OPINION_LABELS),
    (LabelKind.STATUS, _STATUS_LABELS),
)
# CJK labels are written without spaces: '综合判定', '本次审查结论', '审批建议'.
_CJK_MODIFIER_RE = compile_lazily(
    "^(?:"
    + "|".join(sorted((m for m in _MODIFIERS if _is_cjk(m)), key=lambda m: (-len(m), m)))
    + ")+"
)


@functools.lru_cache(maxsize=4096)  # labels repeat ('Date', 'Status'): classify each once
def label_kind(label: str) -> LabelKind | None:
    """Classify a normalized label ('overall verdict', 'ready to merge', '综合判定') or None."""
    label = clean_value(label)
    for kind, table in _KINDS:
        if label in table:
            return kind
    if label and _is_cjk(label):
        core = _CJK_MODIFIER_RE.sub("", label)
        return label_kind(core) if core != label and core else None
    return _modified_label(label)


def _modified_label(label: str) -> LabelKind | None:
    """'overall verdict', 'final r6', 'task quality': modifiers before a known label."""
    words = label.split()
    if not words or len(words) > 4:
        return None
    if words[0] in ("overall", "final", "最终", "最终", "최종") and len(words) <= 3:
        kind = label_kind(" ".join(words[1:])) if len(words) > 1 else None
        return kind if kind is not None else LabelKind.OPINION
    head = [w for w in words[:-1] if not w.rstrip("0123456789-").endswith(("round", "r"))]
    if all(w in _MODIFIERS for w in head) and len(words) > 1:
        return label_kind(words[-1])
    return _label_verdict(words)


def _label_verdict(words: list[str]) -> LabelKind | None:
    """'final task quality verdict': the verdict of a field this vocabulary names ('Task
    quality:', 'Spec compliance:'), after an optional 'final'/'overall'. Only known labels
    compose, as written in the tables ('security verdict', 'their task quality verdict' stay
    unknown)."""
    inner = " ".join(words[1:-1] if words[0] in ("final", "overall") else words[:-1])
    if len(words) < 3 or label_kind(words[-1]) is not LabelKind.VERDICT:
        return None
    return LabelKind.VERDICT if any(inner in table for _, table in _KINDS) else None
