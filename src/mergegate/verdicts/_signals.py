"""What live prose says about an approval: conditions, doubt, withdrawals, blocking content.

These detectors never *make* an approval; they only take one away (principle 1). Each reads
normalized text (see `_vocab.clean_value`), one clause or line at a time, in time linear in
it. Every phrase list is closed and per language; a phrase preceded in its clause by a
negation ("no fixes required before merge", "don't block the merge", "0 blocking") does not
count.

* `condition_in(text, answer_clause=...)`: the answer clause (the rest of the sentence that
  holds the affirmative token) may not contain any condition, contrast or obligation word;
  later sentences may not tie the merge to a condition ("once …", "before merge", "pending").
* `doubt_in(text)`: hedged answers ("Yes? I am not sure", "probably").
* `withdrawal_in(text)`: a retraction ("I retract my approval", "please do not merge").
* `contrary_in(text)`: a verdict that says no, wherever it sits on the line
  ("After another look, Verdict: REJECT", "changes requested").
* `blocking_in(text)`: blocking content ("must be fixed before merge", "MUST FIX",
  "Blocking: …", "2 critical").
* `non_blocking_extra(text)`: the closed list of extras that keep an approval
  ("with nits", "with commendations", "(0 blocking)", "con mejoras menores opcionales").
* `bare_no_in(text)`: a sentence that opens with a bare no ("No, wait —", "Nope.",
  "Nein,", "不，") or ends on one ("…, so no.").
* `not_reviewed_in(text)`: the review has not happened yet ("Will review this afternoon.").
* `failing_checks_in(text)`: tests, build or CI failing now ("the tests fail", "CI is red"),
  unless its clause says otherwise ("fails without the fix", "was failing").
* `obligation_in(text)`, `merge_tied(text)`, `reported_before(text)`,
  `scoped_answer_in(text)`: an obligation, a tie to the merge, reported speech before a
  verdict, an answer scoped to another change.
"""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._composed_phrases import (
    DONE,
    DONE_REPORT,
    negated_before,
    negated_merge_in,
    told_done,
)
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._vocab import alternation, first_hit, phrases

# `DONE` and `negated_before` live in `_composed_phrases` and are re-exported here for the
# readers that import them from this module.
__all__ = [
    "BLOCKING_SECTION",
    "CONTRAST_OPENING",
    "COUNT_LABEL",
    "DONE",
    "NONE_ITEM",
    "bare_no_in",
    "blocking_in",
    "condition_in",
    "contrary_in",
    "declares_non_blocking",
    "doubt_in",
    "excluded_after_comma",
    "failing_checks_in",
    "heading_condition",
    "in_taxonomy",
    "merge_tied",
    "negated_before",
    "non_blocking_contrast",
    "non_blocking_extra",
    "not_reviewed_in",
    "obligation_in",
    "only_scope_in",
    "partial_scope_in",
    "reported_before",
    "scoped_answer_in",
    "withdrawal_in",
]


def _first_live(pattern: re.Pattern[str], text: str) -> str | None:
    for match in pattern.finditer(text):
        if negated_before(text, match.start()) or _NEGATED_OBJECT.match(text, match.end()):
            continue
        if match.group(0).strip() == "required" and _MEASURE_BEFORE.search(text, 0, match.start()):
            continue  # '10-20ms actual vs <50ms required': the spec's value, not an obligation
        if _conforms(text, match):
            continue  # 'the function is pure as required': a state that meets the requirement
        if not _done_in_clause(text, match.end()):
            return match.group(0).strip()
    return None


# A measure right before 'required' makes it the value a spec asks for, compared with what
# was measured ('<50ms required', '≥ 80% required'); a noun between them ('1 fix required')
# leaves it an obligation.
_MEASURE_BEFORE = compile_lazily(
    r"(?<![\w.])[<>≤≥~]?[ \t]?\d[\d.,]*[ \t]?"
    r"(?:%|ms|µs|us|ns|s|sec|min|h|kb|mb|gb|tb|x|px|fps|rps|qps)?[ \t]+$"
)


# 'as required' after a copula tells a state that conforms ('the function is pure as
# required', 'errors are raised as required'): what is required holds. Without the copula it
# is still an obligation ('add tests as required'), and so is 'required' anywhere else.
_AS_BEFORE = compile_lazily(r"(?<!\w)as[ \t]+$")
_CONFORMING = frozenset({"required", "needed"})
_COPULA = compile_lazily(r"(?<!\w)(?:is|are|was|were|been)(?!\w)")
_MOST_CONFORMING_CHARS = 80
_CLAUSE_EDGE = compile_lazily(r"[.;:!?,—–]")
_INFINITIVE = compile_lazily(r"(?<!\w)to(?!\w)")


def _conforms(text: str, match: re.Match[str]) -> bool:
    """`match` (an obligation word) is the 'required' of 'is … as required' in its clause."""
    if match.group(0).strip() not in _CONFORMING:
        return False
    start = match.start()
    if _AS_BEFORE.search(text, max(0, start - 8), start) is None:
        return False
    window = text[max(0, start - _MOST_CONFORMING_CHARS) : start]
    clause = _CLAUSE_EDGE.split(window)[-1]
    copula = _COPULA.search(clause)
    # 'is to be rerun as required' is still an obligation: the state is not reached
    return copula is not None and _INFINITIVE.search(clause, copula.end()) is None


# An obligation whose object is negated asks for nothing: 'needs no external data',
# 'requires nothing else' (not 'must not', a prohibition, nor 'needs no-op stubs removed').
_NEGATED_OBJECT = compile_lazily(r"[ \t]+(?:no|nothing)(?=[ \t.,;:!)]|$)")


def _done_in_clause(text: str, at: int) -> bool:
    """The rest of the sentence after `at` reports the thing done ('the single Low (missing
    regression test) is fixed'): an obligation word before it is history, not a demand. A
    modal before the report ('should have been fixed') keeps it a demand."""
    return told_done(re.split(r"[.;!?。；]\s", text[at : at + 200])[0], DONE_REPORT)


# --------------------------------------------------------------------------- conditions

# Anywhere after an approval: these tie the merge to something that has not happened.
_ALWAYS = compile_lazily(
    r"(?<!\w)(?:as soon as|provided that|as long as|"
    r"so long as|subject to|contingent (?:on|upon)|on condition|only if|only when|"
    r"not until|prior to (?:merg\w*|landing|release)|"
    r"before (?:(?:the |this |it |we )?(?:merg\w*|land\w*|ship\w*|release\w*|approv\w*|"
    r"going live)|(?:this|it) (?:is |gets )?(?:merged|lands|ships))|"
    r"(?:merge|merging|ship it|ship|land it|approve|approval)(?: it| this)?(?: only)? "
    r"(?:when|after|once|if)(?!\w)|"
    r"(?:fix|address|resolve|correct|rename|add|remove|update|change)(?!\w)[^.;]{0,60}"
    r"(?<!\w)first(?=[ )]*(?:[.;,!]|$))|"
    r"dès que|une fois que|sous réserve|à condition|pourvu que|avant (?:de )?(?:fusionner|"
    r"merger|la fusion|le merge|intégrer)|sobald|vorausgesetzt|sofern|bevor (?:ge)?merg|"
    r"vor dem (?:merge|mergen|zusammenführen)|una vez que|siempre que|siempre y cuando|"
    r"antes de (?:hacer )?(?:merge|fusionar|integrar|mergear)|desde que|contanto que|"
    r"antes do merge|antes de (?:fazer )?(?:merge|integrar)|purché|prima del merge|"
    r"после исправления|перед слиянием)(?!\w)|"
    r"合并前|合并之前|合入前|修复后|修改后|修正后|之后再|后再合并|后可合并|后合并|才能合并|前提是|"
    r"条件是|一旦|マージ前|マージする前|修正后|対応后|次第|병합 전|수정 후|조건으로|후에 병합"
)
# Also anywhere after an approval, unless the sentence tells what already happened ('the
# test was flaky until round 2'): time and condition words that point ahead.
_AHEAD = compile_lazily(
    r"(?<!\w)(?:once|until|till|unless|pending|provided|providing|awaiting|"
    r"waiting (?:on|for))(?!\w)"
)
_PAST = compile_lazily(r"(?<!\w)(?:was|were|had|did|been|became|used to|until now|so far)(?!\w)")
# In the answer's own clause ('Yes, but …', 'APPROVED once …', '通过，但 …') every condition or
# contrast word makes the answer conditional …
_ANSWER_CONDITION = compile_lazily(
    r"(?<!\w)(?:if|once|after|when|whenever|until|till|unless|pending|provided|providing|"
    r"assuming|but|though|although|however|except|excepting|first|before|please|subject to|"
    r"awaiting|waiting (?:on|for)|"
    r"conditional|conditionally|contingent|as long as|as soon as|on condition|only if|expected|"
    r"hopefully|eventually|modulo|barring|given that|prior to|"
    r"so long as|by the time|the moment|the minute|in case|in the event|supposing|"
    r"on the condition|"
    # 'upon' and 'following' are 'after' as prepositions of time (a past act after them is
    # history, `told_after`); the rest are 'contingent on' told with another word
    r"upon|following|predicated|dependent on|depending on|hinges on|hinging on|"
    r"conditioned on|gated (?:on|by)|"
    r"dès que|une fois|après|avant|mais|pourvu|sous réserve|si|quand|lorsque|pero|cuando|"
    r"una vez|después|tras|antes|siempre que|salvo|excepto|sin embargo|mas|quando|depois|"
    r"após|desde que|se|porém|exceto|sobald|aber|nachdem|wenn|falls|bevor|vorausgesetzt|erst|"
    r"jedoch|außer|sofern|ma|dopo|prima|purché|но|когда|после|если|до)(?!\w)|"
    r"但|不过|然而|之后|以后|修复后|修改后|完成后|合并后|通过后|后再|后可|合并前|之前|前须|前需|"
    # 后 closes a clause that says when ('通过（修复测试后）'), whatever stands before it;
    # not in 后端/后台 (backend), 后方 (backward), 最后 (last), 后续 (a follow-up).
    r"(?<!最)后(?![端台方续])|"
    r"(?<![期对等接招款])待|一旦|如果|若|只要|前提|条件|れば|たら|なら|后に|前に|ただし|但し|次第|"
    r"除外|除了|以外|例外|を除|제외|"
    r"けど|후|전에|단,|하지만|조건"
)
# On the verdict's own line, later sentences may not put a condition or time on it either
# ('LGTM. Ship it — after the migration is reverted'); contrast words are allowed there ('I
# had concerns before, but the second commit resolved them').
_SAME_LINE_CONDITION = compile_lazily(
    r"(?<!\w)(?:if|once|after|when|whenever|until|till|unless|pending|provided|providing|"
    r"awaiting|waiting (?:on|for)|"
    r"assuming|subject to|conditional|conditionally|contingent|as long as|as soon as|"
    r"on condition|only if|expected|hopefully|eventually|given that|prior to|"
    r"dès que|une fois|après|quand|lorsque|cuando|una vez|después|tras|siempre que|quando|"
    r"depois|após|desde que|sobald|nachdem|wenn|falls|bevor|vorausgesetzt|sofern|dopo|purché|"
    r"когда|после|если)(?!\w)|"
    r"之后|以后|修复后|修改后|完成后|一旦|如果|只要|前提|条件|れば|たら|なら|后に|次第|후|조건"
)
# … and so does every obligation word that is not negated ('Yes — no changes needed' stays).
_ANSWER_OBLIGATION = compile_lazily(
    # 'must-haves' (GSD's name for a phase's required truths, hyphen read as a space) is a noun
    r"(?<!\w)(?:must(?! haves)|should|need|needs|needed|required|requires|require|have to|"
    r"has to|missing|debe|deben|requiere|falta|faltan|deve|devem|requer|doit|doivent|il faut|faut|"
    r"manque|nécessite|nécessitent|necesita|necesitan|precisa|precisam|muss|müssen|braucht|"
    r"benötigt|fehlt|fehlen|erst|manca|mancano|нужно|надо|требует)"
    r"(?!\w)|必须|需要|需|须|必要|필요|缺少"
)
# A later sentence on the verdict's line that opens with a contrast is the answer going on
# ('LGTM. Ship it. — but rename the flag', '… — mais il faut corriger le test').
CONTRAST_OPENING = compile_lazily(
    r"[ \t—–,;:-]*(?:but|though|although|however|except|yet|mais|pero|sin embargo|mas|porém|"
    r"aber|jedoch|ma|però|но|однако)(?!\w)|"
    r"[ \t—–,;:-]*(?:但|但是|不过|然而|しかし|ただし|하지만)"
)
_DOUBT = compile_lazily(
    r"\?|(?<!\w)(?:not sure|unsure|i think|i believe|i guess|i suppose|maybe|perhaps|"
    r"probably|possibly|tentative|tentatively|for now|mostly|partially|partly|in principle|"
    r"kind of|sort of|somewhat|arguably|might|ish|quizás|tal vez|"
    r"probablemente|talvez|provavelmente|peut être|probablement|vielleicht|wahrscheinlich|"
    r"forse|возможно|confidence[ \t]*[:=]?[ \t]*(?:low|medium|moderate)|"
    r"(?:low|medium|moderate)[ -]confidence)(?!\w)|"
    r"也许|可能|大概|暂时|基本|原则上|たぶん|多分|おそらく|一応|아마|일단"
)


_CLAUSE_EDGE = compile_lazily(r"[,.;:!?。，；：]")


def _past(text: str, at: int) -> bool:
    """The clause around `at` tells what already happened ('the test was flaky until …')."""
    start = max((m.end() for m in _CLAUSE_EDGE.finditer(text, 0, at)), default=0)
    stop = _CLAUSE_EDGE.search(text, at)
    return _PAST.search(text, start, stop.start() if stop else len(text)) is not None


_MERGE_WORD = compile_lazily(
    r"(?<!\w)(?:merg\w*|ship|shipping|land|landing|approv\w*|lgtm|release|go in|"
    r"ready)(?!\w)|合并|合入|マージ|병합|fusion|fusionar"
)


def condition_in(text: str, *, answer_clause: bool, same_line: bool = False) -> str | None:
    """The condition that `text` puts on an approval, or None.

    `answer_clause`: `text` is the rest of the answer's own clause, where any condition,
    contrast or (not negated) obligation word counts. Otherwise conditions tied to the
    merge count ("before merge", "as soon as" …), and time words that point ahead ("once",
    "until", "pending") count in the verdict's own line (`same_line`) or next to a merge
    word; a negated one or one in a sentence about the past does not ("no code fixes
    required before merge", "the test was flaky until round 2").
    """
    found = _merge_tied(text)
    if found is not None and (answer_clause or not _past_or_negated(text, found.start())):
        return found.group(0).strip()
    if answer_clause:
        found = _ANSWER_CONDITION.search(text)
        return found.group(0).strip() if found else _first_live(_ANSWER_OBLIGATION, text)
    if same_line:
        same = _ahead(_SAME_LINE_CONDITION, text) or _first_live(_ANSWER_OBLIGATION, text)
        if same is not None:
            return same
    ahead = _ahead(_AHEAD, text)
    if ahead is None:
        return None
    opens = not _AHEAD.split(text, 1)[0].strip(" -*_>•")  # 'Pending the security review.'
    return ahead if same_line or opens or _MERGE_WORD.search(text) else None


# Right after a 'before the merge' (`_ALWAYS`): 'or' and the same event's other side ('before
# or after the merge' is read whole elsewhere; 'before merging or right after',
# '合并前或合并后', '合并前或后', 'マージ前または后' (folded), '병합 전 또는 후'): an
# alternative in time, no condition — the work may as well follow the merge. Only 'after'
# and the merge itself may follow the 'or' ('before merging or after the fix lands' names
# another event: still a condition).
_OR_AFTER = compile_lazily(
    r"[ \t]*(?:or|或者?|或是|または|또는)[ \t]*(?:(?:right|just|shortly|immediately)[ \t]+)?"
    r"(?:after(?:wards)?(?:[ \t]+(?:it|that|the merge|merging|merge|landing))?(?![ \t]*\w)|"
    r"(?:合并|合入|マージ|병합)?[ \t]*(?:之?后|후))"
)


def _merge_tied(text: str) -> re.Match[str] | None:
    """The first condition tied to the merge (`_ALWAYS`) that is no side of an alternative in
    time (`_OR_AFTER`), or None."""
    for found in _ALWAYS.finditer(text):
        if _OR_AFTER.match(text, found.end()) is None:
            return found
    return None


def _past_or_negated(text: str, at: int) -> bool:
    """Negated, or told as done before it in its sentence ('it has already been fixed on
    the PR by 853c1e1 before merge')."""
    if negated_before(text, at):
        return True
    return told_done(re.split(r"[.;!?。；]\s", text[max(0, at - 200) : at])[-1], DONE_REPORT)


def obligation_in(text: str) -> str | None:
    """An obligation that is not negated ('needs a cleanup sprint', 'nécessite travail'), or
    None ('no changes needed' is not one)."""
    return _first_live(_ANSWER_OBLIGATION, text)


def _ahead(pattern: re.Pattern[str], text: str) -> str | None:
    """The first match of a time/condition word that is neither negated nor about the past.
    A time word whose object is a span of time ('tokens expire after 30 minutes') measures
    a duration, it waits for no event: it is passed over."""
    found = next((m for m in pattern.finditer(text) if not _DURATION.match(text, m.end())), None)
    if found is None or _past(text, found.start()) or negated_before(text, found.start()):
        return None
    return found.group(0).strip()


# A span of time: a number (in figures or a small number word) and a unit of time.
_DURATION = compile_lazily(
    r"[ \t]+(?:\d+(?:[.,]\d+)?|an?|one|two|three|four|five|six|ten|fifteen|thirty|sixty)"
    r"[ \t-]*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|"
    r"weeks?|months?|years?)(?![\w-])"
)


_HEADING_CONDITION = compile_lazily(
    r"(?<!\w)(?:once|if|unless|until|till|pending|provided|as soon as|as long as|only if|"
    r"subject to|conditional|conditionally|but|though|dès que|sobald|una vez|desde que|"
    r"pero|mais|aber|mas|nachdem|wenn|falls)(?!\w)|[,;—–-][ \t]*(?:after|when|before|"
    r"après|después|após|cuando|quand)(?!\w)|"
    r"(?<!\w)(?:after|when|before)[ \t]+(?:[^ \t]+[ \t]+){0,6}?(?:is|are|passes|pass|lands|"
    r"land|gets|get|will|goes|turns|becomes|has|have)(?!\w)|"
    r"一旦|如果|但|れば|たら|之后|后再|修复后"
)


def heading_condition(text: str) -> str | None:
    """A condition in a heading (or a label line) above a verdict ('## Verdict, once CI is
    green'), or None. A bare 'after' is left out: 'Verdict after fixes' names a round."""
    found = _merge_tied(text) or _HEADING_CONDITION.search(text)
    return found.group(0).strip(" ,;—–-") if found is not None else None


def doubt_in(text: str) -> str | None:
    """A hedge in the answer clause ('Yes? I am not sure', 'probably'), or None."""
    found = _DOUBT.search(text)
    return found.group(0) if found is not None else None


# --------------------------------------------------------------------------- other scopes

# Words that report someone else's statement: 'The author claims: Ready to merge? Yes',
# 'The PM said: …'. What follows them on the line is not the reviewer's verdict.
_REPORTED = compile_lazily(
    r"(?<!\w)(?:says|said|claims?|claimed|wrote|writes|asked|asks|suggests?|suggested|states|"
    r"stated|thinks|thought|believes|believed|argues|argued|replied|replies|commented|"
    r"according to|quoted|quote|dit|a dit|dice|dijo|disse|diz|sagt|sagte|meint|meinte)(?!\w)"
    r"[^.!?]{0,30}$|(?:说|表示|认为|声称|によると|と言|によれば|가 말|라고)[^。！？]{0,10}$"
)
# In the answer's clause: a verdict about another change ('APPROVE (for PR #41, not this
# one)', 'approved for the previous round').
_SCOPED_ANSWER = compile_lazily(
    r"(?<!\w)(?:(?:for|regarding|about)(?: the| an?)?(?: other| previous| earlier| prior| last|"
    r" another| old)? (?:pr|mr|pull request|merge request|branch)s?(?: ?#?\d+)?|"
    r"not (?:for )?this (?:one|pr|mr|change|branch)|(?:for|of) (?:the )?(?:previous|earlier|"
    r"prior|last|old|other|another|yesterday)(?:[ \t]+[a-z]{1,12}(?:'s)?){0,2}[ \t]+"
    r"(?:round|review|pr|mr|version|draft|change|commit))(?!\w)"
)


def reported_before(text: str) -> bool:
    """The text before a verdict on its line reports someone else's words ('The PM said:')."""
    return _REPORTED.search(text[-80:]) is not None


def scoped_answer_in(text: str) -> str | None:
    """A scope in the answer's clause that makes it a verdict about another change, or None."""
    found = _SCOPED_ANSWER.search(text)
    return found.group(0) if found is not None else None


# Right after the answer: a scope it is given ('for Phase 2', 'for the docs part', '(web
# only)'). What it may name without narrowing the approval: the change as a whole, or the
# step the approval allows ('APPROVED FOR PHASE 5 EXECUTION', 'Ready to merge for the LOCAL
# deliverable').
_FOR_SCOPE = compile_lazily(r"[ \t,:(\[—–-]*(?:only )?for ([^.;,:!?()\[\]]{1,80})")
# '(X only)', 'only for X', and 'X only' ending its clause ('the web part only').
_ONLY_SCOPE = compile_lazily(
    r"\(([^()]{1,80}) only\)|(?<!\w)only (?:for|in|on) [^.;,:!?]{1,80}|"
    r"[^\W_][^.;,:!?()]{0,80}?[ \t]only(?=[ \t*_`)]*(?:[.;!?]|$))"
)
_WHOLE_SCOPE = frozenset(
    phrases(
        """merge|merging|merged|execution|implementation|release|releasing|deployment|deploy|
production|prod|commit|committing|shipping|ship|deliverable|change|changes|pr|mr|patch|
diff|branch|main|master|trunk|it|this|review|use|landing|integration|done|completion"""
    )
)
_SPACED_DASH = compile_lazily(r"[ \t]+[-—–][ \t]+")


# Right after the answer: a part it leaves out ('APPROVED — not the migration', 'LGTM,
# excluding packages/api', 'approve, apart from the backend').
_EXCLUDED_SCOPE = compile_lazily(
    r"[ \t,:(\[—–-]*(?:but |just |though |although )?(?:not|excluding|excluded|except|"
    r"excepting|apart from|other than|aside from|save for|minus|short of)(?![^\W_])"
)


# 'Fine, except the migration.': a part left out after a comma, later on the verdict's line.
_EXCLUDED_AFTER_COMMA = compile_lazily(
    r",[ \t]*(?:but |just )?(?:except|excluding|other than|apart from|aside from|save for|"
    r"minus|but not)(?!\w)[^.;!?]{0,80}"
)


def excluded_after_comma(sentence: str) -> str | None:
    """A part of the change left out after a comma ('Fine, except the migration'), or None."""
    found = _EXCLUDED_AFTER_COMMA.search(sentence)
    return None if found is None else found.group(0).strip(" ,")


# 'Only' naming a part in the other languages reviewers write, in the shapes that scope an
# answer ('nur die Dokumentation', 'uniquement pour la partie frontend', 'только документация',
# 'untuk bagian frontend saja', '仅限 API 部分', 'フロントエンド部分のみ', '문서 변경에 한함'),
# not 'only minor findings' ('仅有', '指摘のみ' name what was found, not what was reviewed).
_ONLY_ELSEWHERE = compile_lazily(
    r"(?<![^\W\d_])(?:nur|ausschlie(?:ß|ss)lich|uniquement|seulement|solo|s[oó]lo|solamente|"
    r"[uú]nicamente|apenas|somente|soltanto|limitatamente|alleen|только|лишь|само|tylko|"
    r"hanya)[ \t]+(?:f[uü]r|pour|para|per|voor|для|за|dla|untuk|die|den|das|der|la|le|les|el|"
    r"los|las|a|o|os|as|il|lo|de|del|alla|al|de[ \t]|документаци|код|фронт|бэк|бек|"
    r"[^\W\d_]+[ \t]+(?:part|teil|partie|parte|часть|част))"
    r"|(?<![^\W\d_])[^\W\d_]+[ \t]+saja(?![^\W\d_])"
    r"|仅限|只限|限于|仅针对|只针对|仅覆盖|仅审查了?|只审查了?|部分のみ|のみ(?:承认|レビュー)|に限る|に限り|"
    r"に限定|限定で|에 한함|에 한해|에 한정|만 해당|부분만"
)


def only_scope_in(sentence: str) -> str | None:
    """A part of the change named with 'only' ('The `packages/web` part only.', '(docs
    only)', 'only for the frontend', and the same in the other read languages), or None: in
    a sentence after an approval on its own line, it narrows the approval as much as in the
    answer's own clause."""
    only = _ONLY_SCOPE.search(sentence) or _ONLY_ELSEWHERE.search(sentence)
    return None if only is None else only.group(0).strip()


# A part counted against the whole: 'LGTM on 3 of 5 commits', 'approved: 2/4 tasks'.
_FRACTION = compile_lazily(
    r"(?<![\w./])(\d{1,4})[ \t]*(?:of|/|out of|de|von|из|中的?)[ \t]*(\d{1,4})[ \t]*"
    r"(?:the[ \t]+)?(?:commits?|files?|tasks?|changes?|prs?|pull requests?|patches|items?|"
    r"modules?|packages?|parts?|sections?|stories|units?|phases?|steps?|hunks?)(?![a-z])"
)


def partial_scope_in(clause: str) -> str | None:
    """A scope right after an approving answer that narrows it to a part of the change
    ('approve for Phase 2', 'APPROVED (packages/web only)', 'LGTM for the docs part') or
    leaves a part out ('APPROVED — not the migration', 'LGTM, excluding packages/api'), or
    None. Such an answer is not an unconditional approval of the whole change."""
    only = only_scope_in(clause)
    if only is not None:
        return only
    fraction = _FRACTION.search(clause)
    if fraction is not None and int(fraction.group(1)) < int(fraction.group(2)):
        return fraction.group(0).strip()
    excluded = _EXCLUDED_SCOPE.match(clause)
    if excluded is not None:
        return clause[: excluded.end() + 40].strip(" ,:(-—–")
    scope = _FOR_SCOPE.match(clause)
    if scope is None:
        return None
    # A spaced dash ends the scope as a comma does ('Ready for Done - all criteria met').
    named = _SPACED_DASH.split(scope.group(1), maxsplit=1)[0]
    words = re.findall(r"[^\W_]+", named)
    return None if words and words[-1] in _WHOLE_SCOPE else scope.group(0).strip(" ,:(-")


# --------------------------------------------------------------------------- withdrawals

_WITHDRAWAL = compile_lazily(
    r"(?<!\w)(?:(?:retract|retracting|retracted|withdraw|withdrawing|withdrawn|rescind|"
    r"rescinding|take back|taking back)(?: my| the| this| that| our)?(?: earlier| previous| "
    r"prior| above| initial| first)?(?: approval| approve| verdict| lgtm| ack| yes| sign ?off|"
    r" recommendation| go)|(?:revoke|revoking|cancel|cancelling|reverse|reversing|pull|pulling)"
    r" (?:my|our)(?: earlier| previous| prior| initial)? (?:approval|verdict|lgtm|ack|yes|"
    r"sign ?off)|no longer (?:approve|approving|recommend|lgtm|ready|mergeable|safe to merge)|"
    r"(?:do|does|should|must|can|could|will|shall) ?not (?:be )?merge|(?:don't|dont|doesn't|"
    r"shouldn't|mustn't|can't|won't) (?:be )?merge|please don't|please do not|"
    r"not (?:yet )?(?:ready|safe|ok|okay) to (?:merge|ship|land)|hold (?:off|the merge)|"
    r"on second thought|on reflection|i was wrong|scratch that|changed my mind|"
    r"(?:take|taking|took) (?:that|it|this) back|"
    r"disregard (?:my|the|that) (?:approval|verdict|previous)|(?:cannot|can't|won't|unable to) "
    r"approve|not approving|approval (?:is )?(?:withdrawn|retracted|revoked)|"
    r"retiro (?:mi|la) aprobación|no hacer merge|no fusionar|no mergear|no aprobar|"
    r"retiro minha aprovação|não fazer merge|não mergear|não aprovar|je retire|ne pas fusionner|"
    r"ziehe (?:meine |die )?(?:zustimmung|freigabe) zurück|freigabe zurückgezogen|"
    r"ne pas merger|pas de merge|nicht mergen|nicht zusammenführen|widerrufe|non fare merge|"
    r"не мержить|не сливать|отзываю)(?!\w)|"
    r"撤回|收回|撤销批准|取消批准|不要合并|请勿合并|先不要合并|暂不合并|不能合并|不可合并|不建议合并|"
    r"マージしない|承认を取り消|取り消します|병합하지 마|병합하지 말|승인 철회|철회"
)


def withdrawal_in(text: str, *, change_only: bool = False) -> str | None:
    """A retraction of the approval or a request not to merge, or None. `change_only`: a
    negated merge verb counts only with the change as its object (`negated_merge_in`)."""
    found = _WITHDRAWAL.search(text)
    if found is not None:
        return found.group(0).strip()
    return negated_merge_in(text, change_only=change_only)


# A sentence that opens with a bare 'no' — an answer, not a determiner: 'No, wait — …',
# 'Actually, no.', 'Nope.', 'Nein, doch nicht', '不，等一下', 'いいえ、…'. 'No issues found.'
# does not count: there 'no' goes on into its noun.
_BARE_NO = compile_lazily(
    r"[ \t(\"'“«-]*(?:(?:wait|actually|hmm+|oh|sorry|correction|update|edit|ok|okay|well|but|"
    r"en fait|en realidad|bueno|pues|espera|na ja|eigentlich|doch)[ \t,.:;!—–-]+){0,3}"
    r"(?:no|nope|nah|non|nein|não|нет)(?=[ \t]*(?:[,.!;:…—–)]| -|$))|"
    r"[ \t(「『-]*(?:(?:其实|等等|やはり|実は|いや)[ \t,，、。:：]*){0,2}"
    r"(?:不行|不对|不|いいえ|いや|아니요|아니오|아니)(?=[ \t]*(?:[，,。.！!、—–:：)-]|$))"
)
# A sentence that ends on a bare no: '(Correction: the tests fail on CI, so no.)'.
_ENDS_NO = compile_lazily(
    r"(?<!\w)(?:so|then|hence|therefore|thus|which means|that means|and)[ \t,:]+"
    r"(?:no|nope|not approved|it is a no|it's a no)[ \t.!)*_]*$"
)


# The review has not happened yet: 'Will review this afternoon.', 'I haven't looked at the
# tests', 'Reviewing now'. An approval beside one is a receipt, not a verdict.
_NOT_REVIEWED = compile_lazily(
    r"(?<!\w)(?:(?:i|we)(?: will|'ll| shall| am going to|'m going to| are going to)[ \t]+|"
    r"(?:will|going to)[ \t]+|)(?:review|reviewing|look at|looking at|check|checking|read|"
    r"go through|take a (?:closer |proper )?look)(?:[ \t]+(?:it|this|these|the rest|the pr|"
    r"the change|the diff|the patch|the code))?[ \t]+(?:now|later|tomorrow|soon|"
    r"this (?:afternoon|evening|week)|tonight|next week)(?!\w)|"
    r"(?<!\w)(?:needs?|requires?) (?:another|a second|a further|one more|a new) (?:review|"
    r"round|pass|look)(?!\w)|"
    r"(?<!\w)(?:have not|haven't|did not|didn't|not yet|still need to|yet to)[ \t]+"
    r"(?:review(?:ed)?|look(?:ed)? at|check(?:ed)?|read)(?!\w)|(?<!\w)not (?:yet )?reviewed(?!\w)|"
    r"(?<!\w)(?:lo revisaré|revisaré|je vais (?:regarder|relire)|ich schaue (?:es )?mir später)|"
    r"稍后(?:审查|查看|再看)|还没(?:有)?(?:审查|看)|后で(?:レビュー|确认)|まだ(?:レビュー|确认)していません"
)


def not_reviewed_in(text: str) -> str | None:
    """A statement that the review has not happened yet ('Will review this afternoon.')."""
    found = _NOT_REVIEWED.search(text)
    return found.group(0).strip(" \t(*_\"'“-") if found is not None else None


def bare_no_in(text: str) -> str | None:
    """A sentence that opens (or closes) with a bare 'no', or None. The caller exempts a
    sentence that answers a question asked just before it ('Breaking changes?' / 'No.')."""
    found = _BARE_NO.match(text) or _ENDS_NO.search(text)
    return found.group(0).strip(" \t(\"'“«-「『") if found is not None else None


# --------------------------------------------------------------------------- contrary verdicts

# The contrary verdicts that reject; the others ask for fixes.
_REJECTING = phrases(
    """not approved|do not merge|don't merge|nack|nacked|no go|不通过|不予通过|驳回|却下|거절|반려|
rechazado|no aprobado|reprovado|não aprovado|rejeté|non approuvé|abgelehnt|nicht genehmigt"""
)
_CONTRARY = alternation(
    phrases(
        """changes requested|request changes|requesting changes|requested changes|needs work|
needs changes|not ready to merge|not mergeable|需要修改|需修改|差し戻し"""
    )
    + _REJECTING
)
_CONTRARY_DECISION = dict.fromkeys(_REJECTING, Decision.REJECT)
# A verdict label anywhere on a line, followed by its answer: 'After another look, Verdict:
# REJECT', 'my verdict is now: request changes', 'ready to merge? no'.
_LABEL_ANYWHERE = compile_lazily(
    r"(?<!\w)(?:verdict|decision|ready to merge|final answer|my answer|conclusion|final|overall|"
    r"bottom line|tl;?dr|outcome|"
    r"判定|结论|판정|결론|veredicto|dictamen|veredito|décision|urteil|entscheidung|вердикт)"
    r"(?:[ \t]+(?:is now|is|now|remains|changes to|changed to|becomes|stays|to)"
    r"(?!\w))*"
    r"[ \t]*[:?=→]?[ \t]*(?:(?:is now|is|now)[ \t]+)?"
)


def contrary_in(text: str) -> tuple[Decision, str] | None:
    """A non-approving verdict anywhere on the line, with its decision, or None."""
    for match in _LABEL_ANYWHERE.finditer(text):
        rest = text[match.end() :].lstrip(" -*:")
        hit = first_hit(rest, at_start=True)
        if hit is not None and hit.decision not in (None, Decision.APPROVE):
            assert hit.decision is not None
            return hit.decision, (match.group(0) + hit.phrase).strip()
    for found in _CONTRARY.finditer(text):
        if negated_before(text, found.start(), words=2) or _told_as_history(text, found.start()):
            continue  # 'round 1 requested changes; all addressed'
        phrase = found.group(0)
        return _CONTRARY_DECISION.get(phrase, Decision.FIXES), phrase
    return None


_EARLIER = compile_lazily(
    r"(?<!\w)(?:previously|earlier|last round|round \d|first round|prior|originally|initially|"
    r"first review|previous review)(?!\w)"
)


def _told_as_history(text: str, at: int) -> bool:
    """The line recounts an earlier round whose request was met ('Round 1 requested
    changes; all were addressed'): both an earlier-round word and a not-negated 'met' word."""
    del at
    met = DONE.search(text)
    return (
        _EARLIER.search(text) is not None
        and met is not None
        and not negated_before(text, met.start(), words=3)
    )


# --------------------------------------------------------------------------- blocking content

# Stated as an obligation: blocking whatever else the clause says.
_MUST_FIX = compile_lazily(
    r"(?<!\w)(?:must be fixed|must be addressed|must be resolved|"
    r"(?:must|needs? to|has to|have to|should) be (?:fixed|addressed|resolved|corrected|changed|"
    r"done|landed|reverted) (?:before|prior to|first)|"
    # any verb under an obligation, tied to the merge ('must land before release')
    r"(?:must|needs? to|has to|have to) (?:[\w-]+ ){1,6}?(?:before|prior to) (?:the |this |it )?"
    r"(?:merg\w*|releas\w*|ship\w*|going live)|"
    # a prohibition of the release until something ('Don't cut the release until the
    # rotation test is fixed', 'Do not tag this before QA signs off'); 'Do not merge until …'
    # and 'do not deploy/ship …' are the no readers' (`reject`)
    r"(?:do not|don't|don’t|never) (?:[\w-]+ ){0,5}?(?:releas\w*|tag|tagging|publish\w*)"
    r"(?: [\w-]+){0,3}? (?:until|before|unless|till)|"
    r"(?:blocks|block) (?:the )?"
    r"(?:merge|merging|release|ship)|is blocking|debe corregirse antes|debe arreglarse antes|"
    r"bloquea el merge|deve ser corrigido antes|bloqueia o merge|doit être corrigé avant|"
    r"muss vor dem merge|blockiert den merge|блокирует|"
    # a harm foretold ('merging this will break production'), not a negated one
    r"(?:will|is going to|are going to) (?!not |never )(?:\w+ )?(?:break|crash|corrupt|"
    r"wipe|leak|delete)|(?:todo|fixme)(?=[ \t]*:)|"
    # a defect stated after a contrast ('works, but the migration is broken')
    r"(?:but|however|though|although|yet|except that)[ \t,]+(?:the|this|its|their|our) "
    r"[\w-]+(?: [\w-]+)? (?:is|are|remains|still is) (?:still )?(?:broken|wrong|incorrect|"
    r"failing|unsafe|insecure|buggy|missing|not working)|"
    # a defect stated of the change itself, now ('the implementation is incorrect')
    r"(?:the (?:implementation|change|changes|code|fix|patch|pr|diff)|this (?:pr|change|patch|"
    r"implementation|code)|it) (?:is|are|remains|still is) (?:still )?(?:incorrect|wrong|broken|"
    r"unsafe|insecure|buggy|not correct|not working)(?![ \t]+to(?!\w)))(?!\w)|"
    r"必须修复|必须修改|必须在合并前|合并前必须|阻塞合并|阻断合并|"
    r"マージ前に修正が必要|병합 전 수정 필요|반드시 수정"
)
# Named as a thing: blocking unless its clause reports it done ('all must-fix items executed
# and verified', 'the blocking issue is resolved').
_BLOCKER_NOUN = compile_lazily(
    r"(?<!\w)(?:must fix|blocking (?:the )?(?:merge|merging|release|ship)|merge blocker|"
    r"is a blocker|are blockers|blocking (?:issue|issues|finding|findings|bug|bugs|problem|"
    r"problems|defect|defects)|showstopper|show stopper|blockers? remain|"
    r"(?:a|one|two|three|[1-9]\d*) (?:remaining |open |real )?blockers?|"
    # 'by default' is how a thing behaves unless set otherwise ('connections are blocked by
    # default'), not what holds the work
    r"(?:is |are |still |currently )?blocked (?:by(?! default(?:$|[^\w ]| (?:in|for|on|at|"
    r"when|unless|and|so|to|via|across|within)(?!\w)))|on|until|pending)|"
    # a grave defect the change brings ('introduces a critical security vulnerability')
    r"(?:introduces|adds|contains|creates|has) (?:a |an )?(?:new )?(?:critical|serious|severe|"
    r"major|high severity|high-severity) (?:security )?(?:vulnerability|bug|flaw|regression|"
    r"defect|issue|hole))(?!\w)|"
    r"阻塞性问题|阻断性问题|阻塞性|修正必须|必须修正|ブロッカー|차단 이슈"
)


# 'Blockers: none', 'must_fix: []' (the brackets are markup, so the value reads empty).
_SAYS_NONE = compile_lazily(
    r"[ \t]*[:=][ \t]*(?:(?:none|0|n/a|no|nothing|null|无|なし|없음)(?![a-z0-9])|[~-]?[ \t]*$)"
)


# A count of the kinds a delivered artefact defines, its grades counted in a parenthesis
# right after it ('7 finding categories with severity levels (3 BLOCKER, 3 WARNING, 1
# INFO)', '12 lint rules (4 blocking, 8 warning)'): the tallies there count categories or
# rules of the product, not findings of this review. The head noun and its modifiers are
# closed lists; 'findings (3 blocker)' or '3 open categories (1 blocker)' stay tallies.
_TAXONOMY = compile_lazily(
    r"(?<![\w.])\d{1,4}[ \t]+(?:(?:finding|severity|review|lint|rule|error|check|test|"
    r"validation)[ \t]+)?(?:categories|category|rules|checks|types|kinds|classes|tiers|"
    r"definitions|templates)"
    r"(?:[ \t]+with[ \t]+(?:severity[ \t]+)?(?:levels|severities|grades))?"
    r"[ \t]*\(([^()\n]{1,80})\)"
)


def in_taxonomy(text: str, at: int) -> bool:
    """Position `at` of `text` lies in the parenthesis that grades a counted taxonomy of
    the product (`_TAXONOMY`): a count there is no finding."""
    return any(m.start(1) <= at < m.end(1) for m in _TAXONOMY.finditer(text))


def blocking_in(text: str) -> str | None:
    """Blocking content on a line ('must be fixed before merge', 'MUST FIX', 'blocks the
    merge'), unless negated in its clause ('nothing blocks the merge'); a
    blocker named as a thing also not when its clause reports it done ('all must-fix items
    executed'), or None."""
    for pattern, done_counts in ((_MUST_FIX, False), (_BLOCKER_NOUN, True)):
        for match in pattern.finditer(text):
            if negated_before(text, match.start()) or _SAYS_NONE.match(text, match.end()):
                continue
            if done_counts and _reported_done(text, match.start(), match.end()):
                continue
            if done_counts and in_taxonomy(text, match.start()):
                continue  # '7 finding categories with severity levels (3 BLOCKER, …)'
            return match.group(0).strip()
    return None


# Tests, the build or CI failing now: 'the tests fail', 'CI is red', '`test_login` fails',
# '3 failing tests', 'die Tests schlagen fehl', '测试没有通过'.
_FAILING = compile_lazily(
    r"(?<!\w)(?:(?:unit |integration |e2e |end to end |new |existing |regression |the |all |"
    r"some |several |\d+ )*(?:tests?|test suite|suite|specs?|build|builds|ci|pipeline|checks?|"
    r"lint|linter|type ?checks?|typecheck|mypy|pytest|compilation)"
    r"(?: [\w'./-]{1,40}){0,3}? (?:still |now |currently |consistently |also )?"
    r"(?:fail|fails|failing|are failing|is failing|is red|are red|is broken|are broken|breaks|"
    r"does not compile|doesn't compile|do not pass|don't pass|does not pass|doesn't pass)|"
    # a count of failures, of tests or alone in a run's summary ('212 passed, 3 failed')
    r"[1-9]\d* (?:failing|failed|broken|errored|erroring)(?: (?:tests?|checks?|specs?)|"
    r"(?= *(?:[,.;)|]|$)))|"
    # the same with the state after its noun ('3 tests red', '2 specs erroring')
    r"[1-9]\d* (?:\w+ )?(?:tests?|checks?|specs?) (?:red|broken|errored|erroring)|"
    # failing somewhere it will run: 'passes locally but fails in CI'
    r"(?:fails|failing|is failing|are failing|breaks|is red|are red) (?:in|on|under) "
    r"(?:the )?(?:ci|main|master|production|prod|staging|windows|linux|macos|mac|build)|"
    r"[1-9]\d* (?:test |check )?failures?|"
    r"(?:las |los )?(?:pruebas|tests) (?:fallan|están fallando)|(?:el build|la ci) falla|"
    r"(?:os )?testes (?:falham|estão falhando)|(?:o build|a ci) falha|"
    r"(?:les )?tests échouent|(?:le build|la ci) échoue|"
    r"(?:die )?tests? (?:schlagen|schlägt) fehl|(?:der )?build schlägt fehl|ci ist rot|"
    r"тесты (?:падают|не проходят))(?!\w)|"
    r"(?:测试|单测|单元测试|构建|ci ?)(?:失败|未通过|没有通过|没通过|不通过)|"
    r"(?:テスト|ビルド|ci ?)(?:が|は)?(?:失败|通らない|落ちて)|"
    r"(?:테스트|빌드)(?:가|이)? ?실패"
)
# In the same clause these say it is not a present failure of this change: a test that fails
# without the fix, on main, as expected, when given bad input; or one that was failing.
_NOT_NOW = compile_lazily(
    r"(?<!\w)(?:without|before|previously|prior|on main|on master|on the base|on the old|"
    r"used to|as expected|expected to|should|would|will|must|can|could|might|may|to|if|when|"
    r"whenever|unless|until|once|now pass\w*|pass\w* now|green now|now green|fixed|resolved|"
    r"no longer|reproduc\w*|was|were|had|did|been|verif\w*|ensur\w*|assert\w*|checks? that|"
    r"pre[ -]?existing|already failing on|"
    r"tests? that|correctly|properly|intentionally|deliberately|fast|loudly|closed|safe)(?!\w)"
)
_CLAUSE = compile_lazily(r"[^.;!?。；！？]*")


_MERGE_TIED = compile_lazily(
    r"(?<!\w)(?:merg\w*|releas\w*|ship\w*|land(?:s|ing)?|deploy\w*|production|go live|launch\w*)"
    r"(?!\w)|合并|合入|上线|发布|マージ|リリース|병합|배포"
)


def merge_tied(text: str) -> bool:
    """The text ties what it says to the merge or release ('… before merge', 'blocks the
    release'). Blocking prose under an advisory heading still blocks when it does."""
    return _MERGE_TIED.search(text) is not None


def failing_checks_in(text: str) -> str | None:
    """Tests, build or CI failing now, unless negated or told as something else in its clause
    ('the new test fails without the fix', 'the test was failing until round 2'), or None."""
    for match in _FAILING.finditer(text):
        # A count is one item of a run's summary: '0 passed, 1 failed' is not negated by the
        # zero of the item before it.
        item = text.rfind(",", 0, match.start()) + 1 if match.group(0)[:1].isdigit() else 0
        if negated_before(text[item:], match.start() - item):
            continue
        start = max(text.rfind(c, 0, match.start()) for c in ".;!?。；！？") + 1
        clause = text[start:] if start > 0 else text
        clause = _CLAUSE.match(clause).group(0)  # type: ignore[union-attr]
        if _NOT_NOW.search(clause) is not None:
            continue
        return match.group(0).strip()
    return None


def _reported_done(text: str, start: int, end: int) -> bool:
    before = re.split(r"[.;!?。；]\s", text[max(0, start - 200) : start])[-1]
    after = re.split(r"[.;!?。；]\s", text[end : end + 200])[0]
    return told_done(before) or told_done(after)


# Headings (and bold pseudo-headings) that open a list of blocking findings.
BLOCKING_SECTION = compile_lazily(
    # 'immediate': BMAD's gate lists what must be fixed before production under it
    r"(?:critical|blockers?|blocking|must[ -]?fix|must have fixed|p0|showstoppers?|immediate|"
    r"严重|阻塞|阻断|必须修复|致命|クリティカル|ブロッカー|치명|차단|크리티컬|"
    r"críticos?|críticas?|bloqueantes?|bloqueadores?|critiques?|bloquants?|kritisch|"
    r"blockierend|критич)"
    r"(?: ?(?:issues?|findings?|problems?|bugs?|items?|severity|defects?|gaps?|问题|issue))?"
    r"(?: ?\([^)]{0,40}\))?[ :：]*$"
)
# Count labels: 'Critical: 2', 'blockers: 1', 'Blocking issues: 3'.
# Longest first: an alternation takes the first alternative that matches, so 'critical' before
# 'critical issues' read 'Critical issues: 2' as the label 'critical' with no count after it.
COUNT_LABEL = compile_lazily(
    r"(?:critical issues|critical findings|critical count|criticals|critical|blocking issues|"
    r"blocking findings|blocking|blockers|blocker|must fix|must-fix|p0|严重问题|阻塞问题|严重|阻塞)"
)
# A finding item that says there is nothing: '(none)', 'None.', '无。', 'なし'.
NONE_ITEM = compile_lazily(
    r"[ \t(]*(?:none|n/a|nothing(?: critical| blocking| to report| to flag)?|"
    r"no (?:critical |blocking |major |new |open |remaining )?(?:issues?|findings?|problems?|"
    r"blockers?|concerns?)|zero|0|nenhum|ninguno|ninguna|aucun|aucune|keine|нет|无|なし|없음|"
    r"-|—)(?: found| identified| reported| remaining| at this time| in this change)?[ \t).。!]*"
)

# --------------------------------------------------------------------------- non-blocking extras

_WITH = compile_lazily(r"(?:with|con|com|avec|mit|和|带)(?!\w)")
_NON_BLOCKING_MARK = compile_lazily(
    r"(?<!\w)(?:nit|nits|nitpicks?|notes?|commendations?|praise|kudos|optional|opcional|"
    r"opcionales|opcionais|optionnel|optionnelle|optionnels|optionnelles|optionalen?|"
    r"facoltativ[aeio]|0 blocking|zero blocking|no blocking|none blocking|non blocking|"
    r"nonblocking|not blocking|non bloquant[es]*|no bloqueantes?|não bloqueantes?|"
    r"nicht blockierend|0 blockers|zero blockers|no blockers)(?!\w)|"
    r"非阻塞|非阻断|不阻塞|可选|任意"
)
_NON_BLOCKING_ALONE = compile_lazily(
    r"[ (\[—–-]*(?:nits? only|non blocking|nonblocking|not blocking|0 blocking|zero blocking|"
    r"0 blockers|no blockers|nits|optional)[ )\].]*"
)
_EXTRA_STOP = compile_lazily(r"[.;,—，；。]|\s-\s|$")
_OBLIGATION = compile_lazily(
    r"(?<!\w)(?:must|required|require|requires|before merg|blocking|blocker|critical|"
    r"should be fixed|need to be fixed|needs to be fixed)(?!\w)|必须|须|需"
)


# A contrast clause that declares itself non-blocking: 'APPROVED, but two naming nits remain
# — non-blocking', '通过，但有两处命名不一致，不阻塞合并'. The corpus rule keeps an approval whose
# extras are explicitly non-blocking; what the clause says besides is still read (a defect,
# an obligation, a condition refuses). 'except' is not here: it leaves a part out.
_CONTRAST_LEAD = compile_lazily(
    r"[ \t—–,;:(-]*(?:(?:but|though|although|however|mais|pero|mas|porém|aber|jedoch|però|но)"
    r"(?!\w)|但是|但|不过|しかし|ただし|하지만)"
)
_DECLARED_NON_BLOCKING = compile_lazily(
    r"(?<!\w)(?:non[ \t]?blocking|not (?:a )?block(?:ing|er)|(?:does not|doesn't|won't|"
    r"will not) block(?: (?:the )?merge| merging)?|non bloquant[es]*|no bloqueantes?|"
    r"não bloqueantes?|nicht blockierend)(?!\w)|"
    r"不阻塞合并|不阻塞合入|不阻塞|非阻塞|不阻断|不影响合并|不影响合入|不构成阻塞|"
    r"ブロッカーではない|ブロックしない|블로커 아님|블로킹 아님"
)


def declares_non_blocking(clause: str) -> bool:
    """The clause only says that what it follows does not block ('not a blocker.',
    '— non-blocking', '不阻塞'): a statement, not an instruction."""
    found = _DECLARED_NON_BLOCKING.search(clause)
    return found is not None and not (clause[: found.start()] + clause[found.end() :]).strip(
        " \t.;:,!—–-()[]*_。，；！"
    )


def non_blocking_contrast(clause: str) -> str | None:
    """What a contrast clause says besides declaring itself non-blocking ('two naming nits
    remain'), or None when `clause` does not open with a contrast or does not say it does
    not block."""
    lead = _CONTRAST_LEAD.match(clause)
    if lead is None:
        return None
    body = clause[lead.end() :]
    if _DECLARED_NON_BLOCKING.search(body) is None:
        return None
    return _DECLARED_NON_BLOCKING.sub(" ", body)


# A 'with …' extra that is a tally of the review's findings in which none is open: a zero count
# ('with 0 blocking issues', 'with no critical or important findings') or findings counted
# with a closing state ('with one accepted minor deviation', 'with all findings resolved').
# Closed vocabularies: grades and states name the values of a finding's severity and status
# fields; the nouns name findings. The tally must be the whole 'with' clause: anything after
# a noun ('with 2 issues fixed later', '… remaining') leaves it a soft approval.
_TALLY_GRADE = (
    r"(?:blocking|critical|important|major|high|medium|severe|serious|open|unresolved|"
    r"outstanding|remaining|known|new|p0|p1|p2|must[- ]fix|high[- ]severity|security|"
    r"correctness|functional|significant|breaking|minor|low|cosmetic|trivial|small|style|"
    r"design|spec|design[- ]spec|documentation|naming)"
)
_TALLY_NOUN = (
    r"(?:issues?|findings?|blockers?|problems?|defects?|bugs?|concerns?|gaps?|regressions?|"
    r"errors?|warnings?|failures?|violations?|deviations?|items?|comments?|nits?)"
)
_TALLY_STATE = r"(?:accepted|resolved|addressed|fixed|closed|waived)"
_TALLY_COUNT = r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|an?|all|both)"
_TALLY_GRADES = rf"{_TALLY_GRADE}(?:(?: or | and |/| ?& ?){_TALLY_GRADE})*"
_TALLY_PHRASE = (
    rf"(?:(?:0|zero|no)(?: {_TALLY_GRADES}(?: {_TALLY_NOUN})?| {_TALLY_NOUN})|"
    rf"{_TALLY_COUNT} {_TALLY_STATE}(?: {_TALLY_GRADE}){{0,2}} {_TALLY_NOUN}|"
    rf"{_TALLY_COUNT}(?: {_TALLY_GRADE}){{0,2}} {_TALLY_NOUN} (?:(?:were|are|now|all) )?"
    rf"{_TALLY_STATE})"
)
_CLEAR_TALLY = compile_lazily(
    rf"{_TALLY_PHRASE}(?:(?: and | plus | ?& ?| ?/ ?){_TALLY_PHRASE})*[ \t)\]]*"
)


def _clear_tally(body: str, after_with: int) -> int:
    """Length of a 'with' clause of `body` that tallies no open finding, or 0."""
    stop = _EXTRA_STOP.search(body, after_with)
    end = stop.start() if stop is not None else len(body)
    clause = body[after_with:end].lstrip()
    found = _CLEAR_TALLY.fullmatch(" ".join(clause.split()))
    return end if found is not None else 0


def non_blocking_extra(text: str) -> int:
    """Length of an explicitly non-blocking extra at the start of `text`, or 0.

    A 'with …' extra (up to its clause end) keeps an approval only when it says it is
    non-blocking (nits, notes, commendations, optional, 0 blocking …) and names nothing that
    must be done; anything else after 'with' is a soft approval.
    """
    lead = len(text) - len(text.lstrip(" ,(-—–"))
    body = text[lead:]
    alone = _NON_BLOCKING_ALONE.match(body)
    if alone is not None and alone.end() > 0 and _is_whole(body, alone.end()):
        return lead + alone.end()
    match = _WITH.match(body)
    if match is None:
        return 0
    tally = _clear_tally(body, match.end())
    if tally:
        return lead + tally
    stop = _EXTRA_STOP.search(body, match.end())
    clause = body[: stop.start() if stop is not None else len(body)]
    marks = list(_NON_BLOCKING_MARK.finditer(clause))
    if not marks or len(clause[: marks[0].start()].split()) > 7:
        return 0
    # The extra ends with its last non-blocking word (and a closing bracket): what follows
    # ('with nits once CI is green') is checked like any other text after the answer.
    end = marks[-1].end()
    end += len(clause[end:]) - len(clause[end:].lstrip(" )]"))
    if _first_live(_OBLIGATION, clause[:end]) is not None:
        return 0
    return lead + end


def _is_whole(text: str, end: int) -> bool:
    return end >= len(text) or not text[end].isalnum()
