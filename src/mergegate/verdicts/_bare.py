"""Lines that are themselves a verdict: a heading (`## Ready to merge`), a whole line
(`Not approved.`), a line starting with LGTM/ACK/NACK, a line (or a bold span) opening a verdict
section (`## Verdict` → `Merge`), and a recorded submit command (`… --verdict pass`)."""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts._answer import (
    TITLE,
    Answer,
    after_approval,
    read_answer,
    skip_extras,
    strip_decor,
)
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import LIST_MARK, Site, make_site, without_list_mark
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import (
    AMBIGUOUS,
    FIRST_WORDS,
    LabelKind,
    alternation,
    clean_value,
    first_hit,
    label_kind,
    phrases,
    word_set,
)

__all__ = ["bare_site", "cli_flag", "heading_phrase", "opens_with_verdict_word"]

_A, _F, _R, _M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED

# --------------------------------------------------------------------------- bare verdicts

_LGTM_FAMILY = frozenset(phrases("lgtm|looks good to me|ship it|shipit|ack|acked"))
_NEGATIVE_FAMILY = frozenset(phrases("nack|nak|nacked"))
# Phrases that may stand alone on a line as a verdict: never an ordinary word, never a
# claim about findings ('No issues.' alone is not a verdict).
_FINDINGS_CLAIMS = frozenset(phrases("no findings|no issues|no issues found|zero findings|clean"))
_TERMINAL = compile_lazily(r"[ \t.!。！✅❌⚠️🟢🔴🟡*_`]*$")


# A claim that nothing blocks, explaining a clean verdict beside it: 'no blockers', 'no
# BLOCKER and no MAJOR findings', 'zero critical or high issues found'. A closed list: the
# explanation of a yes, never a no ('No blocking issues; approve.', 'APPROVED — no blockers').
_CLAIM = (
    r"(?:no|zero|0)[ \t]+(?:(?:critical|blocking|blocker|major|high|important|open|new|"
    r"outstanding|remaining|p0|p1)[ \t]*(?:,|/|or|and)?[ \t]*){0,4}"
    r"(?:issues?|findings?|blockers?|problems?|concerns?|defects?)"
    r"(?:[ \t]+(?:found|identified|remaining|left|open))?"
)
# The spec reviewer's own words for a clean result: 'all requirements met, nothing extra'.
_MET = (
    r"(?:all[ \t]+(?:\d{1,3}[ \t]+)?(?:requirements?|acceptance criteria|criteria|checks|tests|"
    r"items)[ \t]+(?:are[ \t]+|were[ \t]+)?(?:met|pass|passed|passing|satisfied|implemented)|"
    r"nothing[ \t]+(?:extra|missing|added|more))"
)
_ONE = rf"(?:{_CLAIM}|{_MET})"
_CLAIMS = rf"{_ONE}(?:[ \t]*(?:,|;|and|&)[ \t]*{_ONE}){{0,3}}"
_CLEAN_LEAD = compile_lazily(rf"{_CLAIMS}[ \t]*[;.:—–,][ \t]*(?=\S)")
_CLEAN_TAIL = compile_lazily(rf"[ \t]*[—–:;,(-][ \t]*{_CLAIMS}[ \t).!]*")


def bare_site(doc: Doc, index: int, line: Line) -> Site | None:
    if line.heading_level or _mid_sentence(doc, index):
        return None
    return _token_site(index, line) or _line_site(index, line)


# Words a sentence does not end on: the line after one goes on with the same sentence.
_GOES_ON = word_set(
    "and or but nor so then to the a an of with for in on at by from as than that which who whose "
    "into onto via if when while because"
)
_LAST_WORD = compile_lazily(r"([^\W\d_]+)[ \t*_]*$")


def _mid_sentence(doc: Doc, index: int) -> bool:
    """The line goes on with a sentence the line above left open (it ends on a comma or a
    word a sentence does not end on: 'prove it end to end and' / 'ship it, use it …'), so
    its first words are not a line start: a hard-wrapped paragraph is one sentence."""
    above = doc.lines[index - 1] if index > 0 else None
    if above is None or above.blank or above.heading_level or not above.live:
        return False
    if LIST_MARK.match(doc.lines[index].raw):
        return False
    tail = above.raw.rstrip()
    if tail.endswith((",", "—", "–")):
        return True
    last = _LAST_WORD.search(tail)
    return last is not None and last.group(1).lower() in _GOES_ON


def _line_site(index: int, line: Line) -> Site | None:
    text = line.clean
    value = strip_decor(without_list_mark(text))
    lead = _CLEAN_LEAD.match(value)
    if lead is not None:
        value = value[lead.end() :]  # 'No blocking issues; approve.' → 'approve.'
    hit = first_hit(value, at_start=True)
    if hit is not None and hit.decision is not None:
        rest = value[hit.end :]
        if rest.lstrip().startswith(":"):
            return None  # 'Approved by: …' is a label, not a verdict
        if hit.phrase in _LGTM_FAMILY or hit.phrase in _NEGATIVE_FAMILY:
            return _lgtm(index, line, value, hit.phrase)
        # The verdict and nothing else, but decoration or a closed-list non-blocking extra:
        # 'APPROVED with 3 issues (0 blocking)', 'Approved with nits.'
        whole = _TERMINAL.fullmatch(rest) is not None or (
            hit.decision is _A
            and (
                _TERMINAL.fullmatch(skip_extras(rest)) is not None
                or _CLEAN_TAIL.fullmatch(rest) is not None
            )
        )
        plain = hit.phrase not in AMBIGUOUS and hit.phrase not in _FINDINGS_CLAIMS
        placed = not LIST_MARK.match(line.raw) or _in_verdict_section(line)
        answer = read_answer(value, LabelKind.VERDICT) if whole and plain and placed else None
        if answer is None and plain and placed and hit.decision is _A:
            answer = _conditioned(hit.phrase, rest)  # 'APPROVED — contingent on legal review'
        if answer is not None:
            return make_site(index, line, answer, dialect="verdict-line", where="line", kind=None)
    if _in_verdict_section(line):
        return _section_line(index, line, value, hit is not None)
    return None


# A verdict written as one snake token: 'PLAN_REVIEW_PASS', 'CODE_REVIEW_APPROVED'.
_TOKEN = compile_lazily(r"([a-z]+(?:_[a-z]+){1,6})[ \t.!。！✅❌*_]*")
_MAX_TOKEN_PARTS = 7


def _token_site(index: int, line: Line) -> Site | None:
    """A line that is one snake token naming a verdict field and its value: the shortest
    head that is a known label ('plan review', 'review', 'code review') and the rest read as
    that label's answer ('pass', 'pass with fixes', 'fail'). A head that names no verdict
    field ('DEPLOY_PASS', 'TEST_PASS') makes no site, and neither does a token in a code
    span (code, not the reviewer's verdict)."""
    if "_" not in line.low or "`" in line.low:
        return None
    whole = _TOKEN.fullmatch(strip_decor(without_list_mark(line.low)))
    if whole is None:
        return None
    parts = whole.group(1).split("_")
    for cut in range(1, min(len(parts), _MAX_TOKEN_PARTS)):
        kind = label_kind(" ".join(parts[:cut]))
        if kind is None:
            continue
        answer = read_answer(" ".join(parts[cut:]), kind)
        if answer is None:
            return None
        where = "verdict token"
        return make_site(index, line, answer, dialect="verdict-line", where=where, kind=kind)
    return None


def _conditioned(phrase: str, rest: str) -> Answer | None:
    """A whole-line approval whose clause goes on, after a break, with a condition: not an
    approval but a conditional yes (`fixes`). Any other continuation is prose, not a verdict."""
    if rest.lstrip()[:1] not in ("—", "–", "-", ",", ";", "(", ":"):
        return None
    problem = after_approval(rest)
    if problem is None or problem[0] is not _F:
        return None
    return Answer(_F, phrase, problem[1])


def opens_with_verdict_word(text: str) -> bool:
    """Cheap: does the first word (after decoration) start some verdict phrase?"""
    match = _FIRST_WORD.search(text[:40])
    if match is None:
        return False
    word = match.group(0)
    return word in FIRST_WORDS or word[0] in FIRST_WORDS


_FIRST_WORD = compile_lazily(r"[^\W\d_][^\W_]*")


def _in_verdict_section(line: Line) -> bool:
    section = line.section
    return section is not None and section.verdict_like


def _lgtm(index: int, line: Line, value: str, phrase: str) -> Site | None:
    if phrase in _NEGATIVE_FAMILY:
        answer = Answer(_R, phrase)
    elif phrase in ("ack", "acked") and _TERMINAL.fullmatch(value[len(phrase) :]) is None:
        # 'ACK — received the patch' acknowledges receipt; only a bare ACK is a verdict.
        answer = Answer(_M, phrase, "an ACK followed by more text is a receipt, not a verdict")
    else:
        found = read_answer(value, LabelKind.VERDICT)
        if found is None:
            return None
        answer = found
    return make_site(index, line, answer, dialect="lgtm", where="line start", kind=None)


def _section_line(index: int, line: Line, value: str, opens_with_word: bool) -> Site | None:
    if opens_with_word and not any(value.startswith(c) for c in _FINDINGS_CLAIMS):
        answer = read_answer(value, LabelKind.OPINION)
        if answer is not None:
            where = "verdict section"
            return make_site(index, line, answer, dialect="verdict-section", where=where, kind=None)
    section = line.section
    if section is not None and "summary" in section.text:
        return None
    for match in _EMPHASIS.finditer(line.low):
        span = clean_value(next(g for g in match.groups() if g is not None))
        hit = first_hit(span, at_start=True)
        if hit is None or hit.decision is None or hit.end != len(span.rstrip(" .!")):
            continue
        tail = clean_value(line.low[match.end() :])
        answer = read_answer(f"{span} {tail}", LabelKind.OPINION)
        if answer is None:
            continue
        where = "verdict section (emphasis)"
        return make_site(index, line, answer, dialect="verdict-section", where=where, kind=None)
    return None


_EMPHASIS = compile_lazily(r"\*\*([^*]{1,60})\*\*|__([^_]{1,60})__|`([^`]{1,60})`")


def heading_phrase(index: int, line: Line) -> Site | None:
    """A heading that is itself a verdict: '## Ready to merge', '## LGTM', '## Approved'."""
    value = strip_decor(clean_value(norm(line.heading_text)))
    hit = first_hit(value, at_start=True)
    if hit is None or hit.decision is None or hit.phrase in _FINDINGS_CLAIMS:
        return None
    if hit.phrase in AMBIGUOUS:
        return None  # '## Issues', '## Merge': an ordinary word as a title
    answer = read_answer(value, LabelKind.VERDICT, heading=line.heading_level)
    if answer is None or (answer.why or "").startswith(TITLE):
        # '### Passed checks', '### 通过项汇总': a title that opens with a yes names its
        # section; it is no verdict (a labelled heading, '## Verdict: …', still is one).
        return None
    return make_site(index, line, answer, dialect="verdict-line", where="heading", kind=None)


# --------------------------------------------------------------------------- cli flag

_CLI_FLAG = compile_lazily(r"--verdict[= ]+[\"']?([a-z_-]{2,30})")
_NOT_RUN = alternation(
    phrases(
        """did not run|didn't run|not run|never ran|would run|could run|you can run|to run|
not executed|skipped|next step|next:|then:|todo:|to do:|example|e.g.|dry run|do not run|
don't run|would submit|will run|should run|must run|run this|run:|please run|once approved"""
    )
)


def cli_flag(index: int, line: Line, text: str) -> Site | None:
    """A recorded submit command '… --verdict pass', unless the line says it did not run."""
    if "--verdict" not in text:
        return None
    match = _CLI_FLAG.search(text)
    if match is None or _NOT_RUN.search(text[: match.start()]):
        return None
    value = clean_value(match.group(1))
    hit = first_hit(value, at_start=True)
    if hit is None or hit.decision is None:
        return None
    answer = Answer(hit.decision, hit.phrase)
    tail = _CLI_ARGS.sub(" ", text[match.end() :])
    if answer.decision is _A and tail.strip(" '\"`"):
        problem = after_approval(clean_value(tail))  # '… --verdict pass, once CI is green'
        if problem is not None:
            answer = Answer(problem[0], hit.phrase, problem[1])
    return make_site(index, line, answer, dialect="cli-flag", where="--verdict flag", kind=None)


_CLI_ARGS = compile_lazily(r"(?:^|\s)--?[a-z][\w-]*(?:[= ]+(?:\"[^\"]*\"|'[^']*'|[^\s-][^\s]*))?")
