"""Does a clause after a closing approval *appraise* the change? (issue 23, deliver 3)

After a verdict that closes a review, the reviewer's prose may give the approval's reasons:
it judges the change (`The parser is clean`, `Error handling looks right`), tells a check
that came out well (`Tests pass`, `I ran the suite locally`), or says there is nothing
against it (`No regressions`, `I could not find anything wrong`), or thanks. Anything else —
a plain statement of what the change does or fails to do (`The export writes every address
into a public bucket`) — is text the verdict did not weigh, whatever it means: mergegate
cannot tell a description from a defect, so it refuses to approve on it (`malformed`, the
hook asks for a restatement).

This is an allow-list, the fail-closed direction: a clause is accounted for only when it
holds a word of appraisal or of a check from `_APPRAISAL` and every negation in it denies a
problem (`no issues`, `nothing blocking`) rather than a property (`never invalidated`).
The other readers (`_statement`) still refuse appraising clauses that hold a condition, a
request or a limit. Linear in the clause.
"""

from __future__ import annotations

from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import CODE_SPAN, WORD, norm
from mergegate.verdicts._vocab import word_set

__all__ = ["names_a_problem", "unappraised"]


# Where one appraisal ends and the next statement starts: sentence ends, a semicolon or a
# colon, a dash, and a comma before a conjunction or relative word.
_CLAUSE_BREAK = compile_lazily(
    r"(?<=[.!?;:])\s+|(?<=[。！？；])|\s+[—–]\s+|\s+-\s+|,\s*(?=(?:but|so|which|while|although|though|"
    r"whereas|yet|however|because|since|and|as)\b)|\s+(?=(?:but|so|although|though|whereas|"
    r"however)\s)|"
    # the other read languages' contrast conjunctions ('…, pero el caché ignora el tenant')
    r",?\s+(?=(?:pero|sino|aunque|mas|porém|embora|mais|cependant|toutefois|aber|jedoch|doch|"
    r"però|ma|tuttavia|но|однако)\s)|[，,]?(?=但是|但|不过|然而|しかし|ただし|하지만)"
)
# 'and' before a new subject ('Tests pass and the export writes …'): a clause break when what
# stands before it is an appraisal of its own; otherwise it joins a subject ('Both findings
# and the minor one are closed').
_AND_SUBJECT = compile_lazily(
    r"\s+and\s+(?=(?:the|this|that|these|those|it|its|they|their|we|i|you|there|every|each|"
    r"all|any|some|several|a|an)\b)"
)
# A check mark says a check passed ('✅ Coverage ≥ 90 %'); a cross or a warning is no
# appraisal and is read by the other readers.
_CHECK_MARKS = "✅✔☑"
# An appraisal is short ('Clean change, tests pass.'); a clause longer than this is read as
# none, which also bounds the 'and' cuts, each of which reads the clause's start again.
_MOST_CLAUSE_CHARS = 400

# Verbs that report a check coming out well or a finding put right ('Tests pass', 'It
# matches the spec', 'The rework addressed the comments'). Verbs whose bare form is also a
# noun a defect is told with ('the check fails', 'the fix breaks', 'every address') count
# only in their past and -ing forms.
_APPRAISING_VERBS = word_set(
    """
    pass work succeed match meet follow align conform cover satisfy fulfil fulfill comply
    exceed honour honor preserve resolve respect
    """
)
_APPRAISING_PARTICIPLES = word_set(
    """
    address close fix check review test trace compare inspect examine verify confirm improve
    simplify clarify exercise approve thank
    """
)
_IRREGULAR = "met ran re-ran reran"


def _inflected(verbs: frozenset[str], *, bare: bool) -> set[str]:
    """Each verb's -ed and -ing forms, and with `bare` its own and -s forms (a 'y' after a
    consonant becomes 'i'; a final 'e' is dropped before -ing)."""
    forms: set[str] = set()
    for verb in verbs:
        stem = verb[:-1] + "i" if verb.endswith("y") and verb[-2] not in "aeiou" else verb
        past = stem + "d" if stem.endswith("e") else stem + "ed"
        ing = verb[:-1] + "ing" if verb.endswith("e") and not verb.endswith("ee") else verb + "ing"
        forms |= {past, ing}
        if bare:
            forms |= {
                verb,
                stem + "es" if verb.endswith(("s", "x", "sh", "ch", "y")) else verb + "s",
            }
    return forms


# Words that judge a change well wherever they stand: those verbs, adverbs, thanks.
_APPRAISAL = frozenset(
    _inflected(_APPRAISING_VERBS, bare=True)
    | _inflected(_APPRAISING_PARTICIPLES, bare=False)
    | word_set(_IRREGULAR)
    | word_set(
        """
        solidly cleanly clearly correctly consistently appropriately properly well nicely
        thoroughly comprehensively safely accurately successfully lgtm thanks kudos
        carefully precisely
        """
    )
)
# Adjectives that judge the change only as a predicate or opening a clause ('The parser is
# clean', 'looks solid', 'Clean change'): before a noun they may name something else
# ('logged in clear text', 'a fine-grained lock'). A closed list by design: what is not in
# these lists is not a reason mergegate recognises.
_APPRAISING_ADJECTIVES = word_set(
    """
    good great fine solid clean cleaner clear correct consistent appropriate proper nice
    excellent thorough comprehensive robust safe sound readable idiomatic tidy elegant
    straightforward simple simpler minimal focused sensible reasonable accurate complete
    covered tested documented green successful working aligned neat helpful useful valuable
    strong ready mergeable easy small scoped well-scoped well-structured well-tested
    well-written well-documented improvement improvements better best faster ok okay right sane
    intact maintainable organized organised structured concise compact careful precise
    acceptable adequate sufficient valid stable secure efficient appreciated cleanup
    """
)
# Words after which an adjective is a predicate: linking verbs, and degree words after them.
_LINKING = word_set(
    """
    is are was were be been being looks look looked seems seem seemed reads read feels feel
    remains remain stays stay appears appear 's now all very really quite pretty fully
    overall also both and
    """
)
_OPENERS = word_set("a an the this that it very really overall all")
# The other read languages' adjectives of appraisal, read in the same places as the English
# ones: before a noun they may name something else ('se registra en claro', 'un correct
# clock'), so anywhere they were a reason a defect could wear.
_OTHER_ADJECTIVES = word_set(
    """
    buen bueno buena buenos buenas correcto correcta correctos correctas limpio limpia claro
    clara completo completa completos completas bom boa bons boas correto correta corretos
    corretas bon bonne bons bonnes correct correcte corrects correctes propre propres clair
    claire complet complète complets complètes gut sauber korrekt richtig klar vollständig
    buono buona corretto corretta chiaro chiara verde verdi vert verte grün zielony zielone
    """
)
# Their linking verbs and degree words ('es correcta', 'est propre', 'ist sauber', 'è molto
# chiaro', 'sieht gut aus').
_OTHER_LINKING = word_set(
    """
    es son está están parece parecen queda quedan muy todo est sont semble semblent reste très tout
    ist sind scheint wirkt bleibt sieht sehr alles è sono sembra resta molto tutto é são muito tudo
    """
)
# Words of appraisal in the other read languages that judge wherever they stand: verbs of a
# check passing, adverbs, and the scripts without spaces (their negations are read apart).
_APPRAISAL_ELSEWHERE = compile_lazily(
    r"很好|良好|不错|正确|清晰|干净|完善|完整|合理|符合|一致|规范|合格|"
    r"(?:无|没有)\s*(?:[a-z]+\s*)?(?:问题|风险|错误|阻塞|缺陷|漏洞|回归|bug)|"
    r"不(?:会)?(?:影响|阻塞|阻止|破坏)|得当|验证|良い|"
    r"通过|绿|(?:指摘(?:事项)?|问题)(?:は)?(?:ありません|なし)|覆盖|カバー|좋|문제 ?없|"
    r"(?<![^\W\d_])(?:bien|хорошо|корректно|"
    r"pasa|pasan|pasando|funciona|passa|passam|passando|passent|fonctionne|bestanden|"
    r"cubren|cubre|couvrent|couvre|cobrem|cobre|abdecken|deckt|coprono|"
    r"completamente|complètement|"
    r"funktioniert|passano|funziona|проходят|работает)"
    r"(?![^\W\d_])"
)
# Negators (closed class). A negation is accounted only when it denies a problem noun or is
# a negative-polarity search that found nothing ('could not find anything wrong').
_NEGATORS = word_set(
    """
    no not never nothing none nor neither without zero cannot can't ne pas jamais sans aucun
    aucune nunca
    sin nada ningún ninguna nicht kein keine keinen keiner ohne nie non senza mai não nao
    sem nenhum nenhuma нет не без ни
    """
)
# A negation that denies a problem a few characters on ('不当作实现错误', '没有发现回归').
_DENIED_UNSPACED = compile_lazily(
    r"[不没无未非][^。！？；，,;.]{0,8}?(?:问题|错误|缺陷|风险|阻塞|漏洞|回归|bug)"
)
_NEGATION_UNSPACED = compile_lazily(r"[不没未无非别勿]|ない|ません|ず(?![^\W\d_])|않|안 |없|못")
_PROBLEMS = word_set(
    """
    issue issues problem problems concern concerns blocker blockers blocking regression
    regressions bug bugs error errors warning warnings failure failures failing finding
    findings objection objections complaint complaints surprise surprises nit nits risk
    risks defect defects vulnerability vulnerabilities breakage breaking flake flakes
    flakiness anything nothing further additional outstanding new remaining open critical
    major important changes change comments comment red flags flag lint fix problemas
    problema problèmes problème probleme problem problemi errores erreurs fehler errori
    erros comentarios commentaires anmerkungen commenti comentários adicionales bloqueantes
    bloquants crítico crítica críticos críticas critique critiques kritisch
    blocker break breaks affect affects impact impacts regress regresses leak
    leaks crash crashes fail fails failed conflict conflicts block blocks fixes action actions
    required needed todo todos gap gaps missing leftover leftovers
    """
)
_NEGATION_REACH = 4


def names_a_problem(words: list[str]) -> bool:
    """A word of `words` names a problem or an open item (`_PROBLEMS`): what a negation
    before or beside it denies ('no issues', 'Breaking changes: none')."""
    return any(w in _PROBLEMS for w in words)


# The outcomes of a check that did not come out well: a count of them or a verb telling one.
_FAILED_OUTCOMES = word_set(
    """
    fail fails failed failing failure failures broke broken breaks errored erroring crashed
    crashes crashing regressed flaky timed-out
    """
)
# A failing verb whose object is denied says nothing failed ('breaks nothing', 'fails no
# check'): it is read without the pair.
_OBJECT_DENIED = compile_lazily(
    r"(?<![\w-])(?:fail|fails|failed|break|breaks|broke|crash|crashes|crashed)\s+"
    r"(?:nothing|no|none|neither)(?![\w-])"
)
# A date or a time ('2026-07-02', '2026-07-02T09:00:00Z') says nothing about the change.
_TIMESTAMP = compile_lazily(r"(?<!\w)\d{4}-\d\d-\d\d(?:[t ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?z?)?(?!\w)")
# A count of none ('0 failed', '0 errors') denies what it counts, like 'no'.
_ZERO_COUNT = compile_lazily(r"(?<![\w.,])0(?![\w.,])")
# 'Nothing else', 'nothing to add', 'none outstanding': nothing more to say against it.
_NOTHING_MORE = word_set(
    """
    else further more to blocking left outstanding remaining new
    """
)
_NEGATED_CONTRACTION = compile_lazily(r"[a-z]+n[’']t\b")


def unappraised(text: str) -> str | None:
    """The first clause of `text` that neither appraises the change nor reports a check, as
    evidence, or None when every clause does (module docstring)."""
    masked = CODE_SPAN.sub(" code ", text)
    for clause in _CLAUSE_BREAK.split(masked):
        if len(clause) > _MOST_CLAUSE_CHARS:
            return clause.strip()[:60]  # no appraisal runs this long; keeps the read linear
        for part in _and_clauses(clause):
            if part.strip() and not _appraises(part):
                return part.strip()[:60]
    return None


def _and_clauses(clause: str) -> list[str]:
    """`clause` cut at each 'and' before a subject whose left side appraises on its own."""
    parts: list[str] = []
    start = 0
    for found in _AND_SUBJECT.finditer(clause):
        if _appraises(clause[start : found.start()]) and _opens_a_clause(clause[found.end() :]):
            parts.append(clause[start : found.start()])
            start = found.end()
    return [*parts, clause[start:]]


_PRONOUNS = word_set("it they we i you there")
_AUXILIARIES = word_set(
    "is are was were be been has have had will would can could may might must does did"
)


def _opens_a_clause(rest: str) -> bool:
    """What follows 'and' has a subject and a verb of its own: a pronoun subject, or a word
    after the noun phrase's first two that is an auxiliary or inflected like a verb ('the
    export writes …', 'the tests were …'); not a second object ('… and the rollback
    script'). A plural noun there reads as a verb: the strict reading errs to refuse."""
    words = WORD.findall(rest.lower())
    if not words:
        return False
    if words[0] in _PRONOUNS:
        return True
    return any(
        w in _AUXILIARIES or (w.endswith(("s", "ed")) and not w.endswith("ss")) for w in words[2:6]
    )


def _appraises(clause: str) -> bool:
    """The clause judges the change well, reports a good check, or denies a problem, and
    every negation in it denies a problem (module docstring)."""
    lowered = _NEGATED_CONTRACTION.sub(
        lambda m: m.group(0)[:-3] + " not", _TIMESTAMP.sub(" ", norm(clause))
    )
    words = WORD.findall(_ZERO_COUNT.sub(" zero ", lowered))
    if not words:
        return True  # a number, a mark, a code span: nothing said
    if lowered.isascii():  # the unspaced scripts' denials and negations are not ASCII
        elsewhere = _APPRAISAL_ELSEWHERE.search(lowered) is not None
    else:
        denied = _DENIED_UNSPACED.sub(" ", lowered)
        elsewhere = denied != lowered or _APPRAISAL_ELSEWHERE.search(lowered) is not None
        # In scripts without spaces a negation is a character or an ending, outside the terms.
        if _NEGATION_UNSPACED.search(_APPRAISAL_ELSEWHERE.sub(" ", denied)):
            return False
    negations = [i for i, w in enumerate(words) if w in _NEGATORS]
    if not all(_denies_a_problem(words, i) for i in negations):
        return False
    if _failure_told(lowered):
        return False
    marked = any(mark in clause for mark in _CHECK_MARKS)
    return elsewhere or marked or bool(negations) or _appraising_word(words)


def _failure_told(lowered: str) -> bool:
    """A check's failing outcome ('3 failed', 'the build broke') that no negator before it in
    the clause denies ('does not contain a defect that breaks …'), no negated object follows
    ('breaks nothing') and no appraisal after it puts right ('the failing test now passes'):
    beside it, a passed check ('212 passed, 3 failed') is no appraisal."""
    words = WORD.findall(_ZERO_COUNT.sub(" zero ", _OBJECT_DENIED.sub(" ", lowered)))
    told = [at for at, w in enumerate(words) if w in _FAILED_OUTCOMES]
    if not told:
        return False
    last_appraisal = max((i for i, w in enumerate(words) if w in _APPRAISAL), default=-1)
    first_negation = min((i for i, w in enumerate(words) if w in _NEGATORS), default=len(words))
    return any(last_appraisal < at < first_negation for at in told)


def _appraising_word(words: list[str]) -> bool:
    """A word of `_APPRAISAL` anywhere, or one of `_APPRAISING_ADJECTIVES` as a predicate
    (after a linking word) or opening the clause (after an article or degree word at most)."""
    for index, word in enumerate(words):
        if word in _APPRAISAL and not (word in _BARE_VERBS and _after_determiner(words, index)):
            return True
        adjective = (
            word in _APPRAISING_ADJECTIVES
            or word in _OTHER_ADJECTIVES
            or _WELL_COMPOUND.fullmatch(word) is not None
        )
        linked = index and (words[index - 1] in _LINKING or words[index - 1] in _OTHER_LINKING)
        if adjective and (all(w in _OPENERS for w in words[:index]) or linked):
            return True
    return False


# A verb's bare forms are nouns after a determiner ('every pass of the scheduler', 'the
# work'): a noun names a thing, it reports no check.
_BARE_VERBS = frozenset(
    form for form in _inflected(_APPRAISING_VERBS, bare=True) if not form.endswith(("ed", "ing"))
)
_DETERMINERS = word_set("a an the every each this that these those any some another one its")


def _after_determiner(words: list[str], index: int) -> bool:
    return index > 0 and words[index - 1] in _DETERMINERS


# 'is well-designed', 'Well-covered change': 'well' before a participle judges what it made,
# as a predicate or opening the clause like the adjectives ('a well-known race' names one).
_WELL_COMPOUND = compile_lazily(r"well-[a-z]+(?:ed|en)")


def _denies_a_problem(words: list[str], at: int) -> bool:
    """The negator at `at` denies a problem noun within a few words ('no new warnings',
    'did not find any issues', 'nothing blocking'), or is itself 'nothing'/'none' ending
    its clause ('Nothing to add.')."""
    if words[at] in ("nothing", "none") and (
        at + 1 == len(words) or words[at + 1] in _NOTHING_MORE
    ):
        return True
    return names_a_problem(words[at + 1 : at + 1 + _NEGATION_REACH])
