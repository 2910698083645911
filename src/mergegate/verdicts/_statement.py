"""Is a line of prose a *statement*? The clause rule the approval's neighbourhood is read
with (issue 23, deliver 3): around an approving verdict, in its own section, a reviewer's
prose may say what is (a reason), not what must be done or what the verdict waits for.

A clause is a statement when its mood is indicative — no modal of obligation, wish or
request (`should`, `has to`, `I'd like`, `let's`, `please`) and no wait (`unless`,
`pending`) — and it opens with a subject (a determiner, a pronoun, a quantifier, a code
span, a number), with a verb that points at other text (`See …`), or with a content word not
followed by its object (`Tests pass`, `Clean change`). A clause that opens with a verb and
its object (`Rotate the key`, `Requires a sign-off`) or with a verb waiting for an event
(`Hold until …`) is an instruction, one that opens with a (negated) subordinator (`Only
after …`, `Not before …`) a condition, and one that answers with another verdict (`No.`)
contradicts the yes. A list item carrying a location
(`a/b.py:12`) or a severity tag (`**Sev-1**`, `[P1]`) is a finding. The grammar words are
English; the verdict words are every read language's. Linear in the line.
"""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._awaited import awaited_event, main_clause
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import declares_non_blocking
from mergegate.verdicts._text import CODE_SPAN, SENTENCE_END, WORD, norm
from mergegate.verdicts._vocab import Hit, clean_value, hits, is_clause_end, word_set

__all__ = [
    "CLAUSES",
    "LABEL",
    "LIST_ITEM",
    "clause_problem",
    "continues_above",
    "finding_item",
    "hold_in",
    "label_says_no",
    "negative_imperative",
    "other_verdict",
    "prose_problem",
    "sentences_problem",
    "severity_label",
    "wrapped_sentence",
]

_A = Decision.APPROVE


# English closed classes. A clause that opens with one of these has its subject first.
_SUBJECT_OPENERS = word_set(
    "the a an all every each no none nothing everything both this these that those it its "
    "i we he she they you my our your their there here one two three zero any some most "
    "several many few neither either overall also so "
    # a conjunction or a preposition: the clause goes on, or opens with an adverbial
    "and or but nor yet while because since although though with without for in on at by "
    "from to of per via thanks "
    # a verb that points at other text instead of asking for work: 'See [the notes](…)'
    "see cf refer"
)
# A content word followed by one of these opens a verb and its object: an instruction
# ('Rotate the key', 'Requires a sign-off', 'Take it out').
_OBJECT_OPENERS = word_set(
    "the a an this that these those my your its our their all every each any some it them "
    "only first me us"
)
# A clause that opens with a subordinator has no main clause: a condition, not a reason.
_SUBORDINATORS = word_set(
    "only unless once after before if when until till provided providing pending except assuming as"
)
# 'Not before …', 'never until …': a negated subordinator opens a condition too.
_NEGATORS = word_set("not never")
# A content word followed by one of these is a verb waiting for an event ('Hold until …').
_WAITING = word_set("until till unless once pending before after")
# Of those, the ones no account of what was done opens with ('Tested after the rebase' is one).
_ONLY_WAITING = word_set("until till unless pending")
# After a verb of approval, these limit it: 'Merge only …', 'Ship first …'.
_LIMITING = word_set("only first")
CLAUSES = compile_lazily(r"(?<=[.!?;:])\s+|\s+[—–]\s+")
LIST_ITEM = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
# 'a/b.py:12', or a code span naming a file: '`auth.py`', '`src/db`' (not '`mod.func_name`').
_LOCATION = compile_lazily(
    r"[\w./-]+\.[a-z]{1,5}:\d+|`[^`\s]*/[^`\s]*`|`[\w./-]*\.[a-z]{1,5}(?::\d+)?`"
)
_SEVERITY_TAG = compile_lazily(
    r"[ \t]*(?:\*\*|__|\[)[ \t]*(?:sev(?:erity)?[ -]?\d|p[0-4]|critical|high|major|blocker|"
    r"important|medium)[ \t]*(?:\*\*|__|\])",
    re.IGNORECASE,
)

# The same severity set as a label, its colon inside or after the emphasis ('**Important:**
# …', '__IMPORTANT__: …'): a finding of that severity whether or not it stands in a list.
_SEVERITY_LABEL = compile_lazily(
    r"[ \t]*(?:\*\*|__)[ \t]*(?:sev(?:erity)?[ -]?\d|p[0-4]|critical|high|major|blocker|"
    r"important|medium)(?:[ \t]*[:：][ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*[:：])",
    re.IGNORECASE,
)

# A severity label's value that holds nothing, with at most one word after it ('None found').
_NONE_VALUE = compile_lazily(r"(?:none|nothing|n/a|na|0|-|—|–)(?:[ \t]+\w+)?[ \t.!]*", re.I)

# A label's key: at most four words ('**Reasoning:**', 'Note:'); a longer clause before a
# colon is prose ('Open item the author still has to take: …'). Its value is what is read.
LABEL = compile_lazily(r"[ \t*_`]*[^\W\d_][\w'-]*(?: [\w'-]+){0,3}[*_`]*[:：][*_`]*[ \t]+")


def finding_item(raw: str) -> tuple[str, str | None]:
    """The line without its list marker, and why it is a finding when it is a list item with
    a location or a severity tag (None otherwise)."""
    item = LIST_ITEM.match(raw)
    rest = raw[item.end() :] if item is not None else raw
    if item is not None and (_LOCATION.search(rest) or _SEVERITY_TAG.match(rest)):
        return rest, f"a list item with a location or a severity tag is a finding ('{rest[:60]}')"
    return rest, severity_label(rest)


def severity_label(rest: str) -> str | None:
    """Why a line (its list marker gone) that opens with a severity set as a label
    ('**Important:** the token is logged') is a finding, or None."""
    label = _SEVERITY_LABEL.match(rest)
    if label is None or _NONE_VALUE.fullmatch(rest[label.end() :].strip(" \t*_")):
        return None  # '**Critical:** None': the count of that severity is nothing
    return f"a label that names a finding's severity opens a finding ('{rest.strip()[:60]}')"


def prose_problem(text: str, *, continues: bool) -> str | None:
    """Why this prose (a label's value is what is read) is not a statement, or None. A line
    that goes on with the sentence above it is read from its first sentence end."""
    label = LABEL.match(text)
    said = _label_problem(label.group(0)) if label is not None else None
    if label is not None and said is not None:
        return f"'{label.group(0).strip()[:60]}' {said}"
    clauses = _split_outside_code(text[label.end() :] if label is not None else text)
    for clause in clauses[1:] if continues else clauses:
        problem = clause_problem(clause)
        if problem is not None:
            return f"'{clause.strip()[:60]}' {problem}"
    return None


def _split_outside_code(text: str) -> list[str]:
    """`text` split at its clause ends (`CLAUSES`), never inside a code span: the '?' of
    '`a ?? b`' or the '.' of '`x. y`' is code, not punctuation."""
    shape = CODE_SPAN.sub(lambda span: "`" + "x" * (len(span.group(0)) - 2) + "`", text)
    cuts = [(m.start(), m.end()) for m in CLAUSES.finditer(shape)]
    starts = [0, *(end for _, end in cuts)]
    ends = [*(start for start, _ in cuts), len(text)]
    return [text[a:b] for a, b in zip(starts, ends, strict=True)]


_SENTENCES = compile_lazily(r"(?<=[.!?;])\s+")


def sentences_problem(text: str, *, continues: bool, openings: bool) -> str | None:
    """`prose_problem` for the prose under a review part after an approval: split at
    sentence ends only (a dash goes on with its sentence: '`t.go` (lines 6-9) — type-asserts
    the chain'), each read as a narrative (`clause_problem`); `openings=False` reads only
    the moods, not how a sentence opens."""
    label = LABEL.match(text)
    said = _label_problem(label.group(0)) if label is not None else None
    if label is not None and said is not None:
        return f"'{label.group(0).strip()[:60]}' {said}"
    masked = CODE_SPAN.sub("CODE", text[label.end() :] if label is not None else text)
    sentences = _SENTENCES.split(masked)
    for sentence in sentences[1:] if continues else sentences:
        problem = clause_problem(sentence, narrative=True, openings=openings)
        if problem is not None:
            return f"'{sentence.strip()[:60]}' {problem}"
    return None


def continues_above(doc: Doc, index: int) -> bool:
    """The line goes on with the sentence of the line above it (a wrapped paragraph or list
    item): its first words are not the start of a clause."""
    above = doc.lines[index - 1] if index > 0 else None
    if above is None or above.blank or above.heading_level or LIST_ITEM.match(doc.lines[index].raw):
        return False
    return above.raw.rstrip(" *_`")[-1:] not in SENTENCE_END


_MAX_WRAPPED = 6


def wrapped_sentence(doc: Doc, index: int) -> str:
    """The line's text with the lines its paragraph wraps onto (a few at most, so the read
    stays linear), without its list mark."""
    parts = [LIST_ITEM.sub("", doc.lines[index].raw, count=1)]
    for after in range(index + 1, min(index + 1 + _MAX_WRAPPED, len(doc.lines))):
        if doc.lines[after].blank or not continues_above(doc, after):
            break
        parts.append(doc.lines[after].raw)
    return " ".join(p.strip(" \t*_>") for p in parts)


_NEGATION = compile_lazily(r"(?<![a-z])(?:no|not|without|nothing|none|zero|never|n't)(?![a-z])")


def _other_verdict(value: str, hit: Hit) -> bool:
    """A verdict word other than yes that opens its clause and ends it there ('No.',
    'Reject, because …'; not 'I had concerns before', nor a negated 'no fixes required')."""
    if hit.decision in (None, _A) or not is_clause_end(value, hit.end):
        return False
    opens = not value[: hit.start].strip(" \t*_>-,")
    return opens and _NEGATION.search(value, 0, hit.start) is None


def clause_problem(
    clause: str, *, narrative: bool = False, openings: bool = True, obligations: bool = True
) -> str | None:
    """Why a clause is not a statement: it says a verdict other than yes, its mood is not
    indicative (`_NOT_INDICATIVE`), or it opens with a verb and its object (an instruction)
    or with a subordinator (a condition). The grammar words are English; the verdict words
    are every read language's. A `narrative` clause (a review part's prose) may open with a
    past form or a gerund, an account of what was done; `openings=False` skips the opening
    rules; `obligations=False` lets a modal of obligation stand (`_OBLIGATION`: a check a
    template hands to a person says what should happen), never a wait, wish or request."""
    text = CODE_SPAN.sub(" CODE ", clause)
    value = clean_value(text.lower())
    other = other_verdict(value)
    if other is not None:
        return f"says '{other}' after the approval"
    held = _held_elsewhere(value)
    if held is not None:
        return held
    about = _about_the_verdict(text, value)
    if about is not None:
        return about
    if not text.isascii():
        return None
    lowered = _QUOTED.sub(" ", text).lower()
    mood = (
        _mood_problem(lowered, obligations=obligations)
        or _partial_basis(lowered)
        or _exception(lowered)
        or _about_the_merge(lowered)
    )
    if mood is not None:
        return mood
    return _opening_problem(text, value, narrative=narrative) if openings else None


def _held_elsewhere(value: str) -> str | None:
    """A clause in another read language that asks for work first or holds the merge
    (`_HOLD_ELSEWHERE`), or tells something still to come (`_STILL_ELSEWHERE`)."""
    held = _HOLD_ELSEWHERE.search(value)
    if held is not None:
        return f"asks for work first or holds the merge ('{held.group(0)}'), not a reason"
    pending = _STILL_ELSEWHERE.search(value)
    if pending is not None:
        return f"tells something still to come ('{pending.group(0)}'), not a reason"
    return None


def _about_the_verdict(text: str, value: str) -> str | None:
    """A clause whose subject is the verdict (`_ABOUT_THE_VERDICT`: 'Our approval assumes
    …') or whose noun phrase anywhere is the verdict itself (`_OWN_VERDICT`: 'I can't stand
    behind the yes I gave earlier') speaks about the decision, not the change."""
    about = _ABOUT_THE_VERDICT.match(value)
    if about is not None:
        return f"speaks about the verdict ('{about.group(0).strip()}'), not the change"
    if not text.isascii():
        return None
    itself = _OWN_VERDICT.search(_QUOTED.sub(" ", text).lower())
    if itself is not None:
        return f"speaks of the verdict itself ('{itself.group(0).strip()}'), not of the change"
    return None


def _judgement(main: str) -> bool:
    """The main clause judges the change (`_appraisal`) as a whole: an appraisal with no
    negation ('The suite passes'), or a none that opens it ('No issues remaining'); not a
    behaviour denied inside a description ('It no longer crashes')."""
    if unappraised(main) is not None:
        return False
    negation = _NEGATION.search(main)
    return negation is None or not main[: negation.start()].strip(" \t*_>-")


def _mood_problem(lowered: str, *, obligations: bool = True) -> str | None:
    """A clause that says what should be (`_NOT_INDICATIVE`) or whose verb, in any form,
    waits for an event ('Deferred until the DBA signs off', 'Parked till QA'): read under an
    opening verdict too, where how a sentence opens is not. With `obligations=False` a modal
    of obligation (`_OBLIGATION`) is not one."""
    moods = _NOT_INDICATIVE.finditer(lowered)
    offered = _offered_checks(lowered)
    mood = next(
        (
            m
            for m in moods
            if (obligations or not _OBLIGATION.fullmatch(m.group(0)))
            and not any(start <= m.start() < end for start, end in offered)
        ),
        None,
    )
    if mood is not None and _LATER_WORK.search(lowered) is None:
        return f"says what should be or waits for something ('{mood.group(0)}'), not a reason"
    awaited = awaited_event(lowered)
    if awaited is not None and _AFTER_MERGE.search(lowered) is None:
        # A judgement that holds only after an event ('Tests pass once the flag is off') is a
        # condition; what the change does after one ('assigns only after validation
        # succeeds') is a description, read as before.
        start, event = awaited
        if _judgement(main_clause(lowered, start)):
            return f"judges the change only after an event ('{event}'), not a reason"
    expected = _still_to_come(lowered)
    if expected is not None:
        return f"tells something still to come ('{expected.group(0)[:40]}'), not a reason"
    words = WORD.findall(lowered)
    if _asks(words, lowered):
        return "asks a question of someone, not a reason"
    if len(words) >= 2 and words[1] in _ONLY_WAITING:
        return f"opens with a verb and what it waits for ('{words[0]} {words[1]}'), not a reason"
    return None


# A check offered, not asked for: a need negated right before 'unless', and after it a person
# and a verb of wanting ('is not required again unless the user wishes to confirm …'). Both
# sides are closed classes; any other 'unless' is a condition.
_NEED_NEGATED = compile_lazily(
    r"(?<![a-z])(?:not|no longer)[ \t]+(?:required|needed|necessary)"
    r"(?:[ \t]+(?:again|anymore|any more|now|here))?[ \t,]*$"
)
_PERSON_WANTS = compile_lazily(
    r"[ \t]+(?:the[ \t]+)?(?:user|users|you|someone|somebody|anyone|they|we|team|reviewer|"
    r"owner|maintainers?)[ \t]+(?:wish|wishes|want|wants|prefer|prefers|would like|"
    r"choose|chooses)(?![a-z])"
)


_UNLESS = compile_lazily(r"(?<![a-z])unless(?![a-z])")
_NEED_WINDOW = 60


def _offered_checks(lowered: str) -> list[tuple[int, int]]:
    """The spans of each 'unless' that offers a check (`_NEED_NEGATED` before it,
    `_PERSON_WANTS` after it), through its verb of wanting: no mood in them is one."""
    spans = []
    for unless in _UNLESS.finditer(lowered):
        wants = _PERSON_WANTS.match(lowered, unless.end())
        # the need stands right before 'unless': a bounded window keeps the read linear
        window = max(0, unless.start() - _NEED_WINDOW)
        if wants is not None and _NEED_NEGATED.search(lowered, window, unless.start()) is not None:
            spans.append((unless.start(), wants.end()))
    return spans


# Modals and 'do' (closed class): one before its subject inverts the clause into a question
# or a request ('Could you add the missing await', 'Can we drop the shim first'). Not 'is' or
# 'has': a wrapped line may go on with them ('… criterion 4) is the part that …').
_AUXILIARIES = word_set("can could would will may might shall do does did")
_INVERTED_SUBJECTS = word_set("you we i it this that these those there the someone somebody")


# A question set as a label: emphasised, a few words ('**Breaking changes?**').
_QUESTION_LABEL = compile_lazily(r"[ \t>-]*(?:\*\*|__)[^*_?]{1,60}\?(?:\*\*|__)[ \t]*")


def _asks(words: list[str], lowered: str) -> bool:
    """The clause is interrogative: it ends with a question mark, or its auxiliary stands
    before its subject. After a verdict a question is work handed to someone, or doubt about
    the change — no reason for the verdict either way."""
    if _QUESTION_LABEL.fullmatch(lowered):
        return False  # '**Breaking changes?**': a field, its answer below (`_after`)
    if lowered.rstrip(" \t*_`)\"'”").endswith("?"):
        return True
    return len(words) >= 2 and words[0] in _AUXILIARIES and words[1] in _INVERTED_SUBJECTS


# The act an approval allows, named as a noun: the merge, the deploy, the release.
_MERGE_ACT = r"(?:merg(?:e|es|ing)|deploy(?:s|ing|ment|ments)?|roll-?outs?|landing|shipping)"
# That act as a clause's subject: a determiner or none, then its verb — a be-form with a
# participle or a preposition ('is gated on', 'stays behind'; not 'is safe'), a modal or a
# perfect (closed class), or a present-tense verb with its preposition ('Deploy waits on').
_MERGE_SUBJECT = compile_lazily(
    r"[ \t*_>-]*(?:(?:the|this|a|any|our|its)[ \t]+)?"
    + _MERGE_ACT
    + r"(?:[ \t]+(?:of|to)[ \t]+[^.;:!?]{1,40}?)?[ \t]+(?:"
    r"(?:is|are|was|were|stays|remains|gets)[ \t]+(?:still[ \t]+|not[ \t]+)?"
    r"(?:(?!un)[a-z]+ed|held|on|upon|behind|until|till|after)(?![a-z])|"
    r"(?:will|would|can|cannot|can't|could|may|might|has|have)(?![a-z'])|"
    r"[a-z]+s[ \t]+(?:on|upon|until|till|behind|after)(?![a-z]))"
)


def _about_the_merge(lowered: str) -> str | None:
    """A clause whose subject is the act the verdict allows ('Merging is gated on the
    security sign-off', 'Deploy waits on the webhook secret'): after the verdict it says
    what happens to the merge, which only the verdict decides — not a reason about the
    change. 'Merge conflicts were resolved' names the change's history (a noun follows)."""
    found = _MERGE_SUBJECT.match(lowered)
    if found is None:
        return None
    return f"speaks of the merge itself ('{found.group(0).strip()[:40]}'), not of the change"


# Exceptive prepositions (closed class): they carve a part out of what a clause covers.
# Python's 'try/except' (also 'try-except') names a code construct, not a part left out.
_EXCEPTIVE = compile_lazily(
    r"(?<![a-z])(?<!try/)(?<!try-)(?:except|excepting|apart from|other than|aside from|"
    r"besides|excluding|save for|but for)(?![a-z])"
)


def _exception(lowered: str) -> str | None:
    """A clause after the verdict that excepts a part ('Everything except the migration
    looks good', 'Apart from the frontend bundle, the change is solid'): the verdict then
    covers the rest, not the whole change."""
    found = _EXCEPTIVE.search(lowered)
    if found is None:
        return None
    return f"excepts a part of the change ('{found.group(0)}'), so the verdict covers the rest"


def _partial_basis(lowered: str) -> str | None:
    """A clause that narrows what the verdict rests on: a focus particle that limits the
    verdict's noun ('The verdict covers the backend only') or the reviewer's own reading ('the
    React side I only skimmed'), or the reviewer telling what they could not or have not
    done ('The suite could not be run in my sandbox', 'not exercised by me'). Then the verdict
    speaks for part of the change, which an approval of the whole may not. A negative
    polarity item makes the negation praise ('I could not find anything wrong')."""
    limited = _LIMITED_VERDICT.search(lowered) or _LIMITED_READING.search(lowered)
    if limited is not None:
        return f"limits what the verdict rests on ('{limited.group(0).strip()}'), not a reason"
    unable = _NOT_DONE.search(lowered)
    if unable is not None and _FIRST_PERSON.search(lowered) and not _POLARITY.search(lowered):
        return f"tells what the reviewer did not do ('{unable.group(0).strip()}'), not a reason"
    return None


# Focus particles that restrict (closed class), beside a noun that names the verdict or
# beside a verb of the reviewer's reading.
_FOCUS = r"(?:only|solely|merely|exclusively|just|partly|partially)"
_VERDICT_NOUN = (
    r"(?:approval|verdict|sign[- ]?off|lgtm|go[- ]ahead|green[ -]light|decision|review)s?"
)
_LIMITED_VERDICT = compile_lazily(
    r"(?<![a-z-])" + _VERDICT_NOUN + r"(?![a-z-])[^.;:!?]{0,80}?(?<![a-z])" + _FOCUS + r"(?![a-z])"
)
_LIMITED_READING = compile_lazily(
    r"(?<![a-z])(?:i|we)(?:'ve|’ve| have| had)? (?:only|merely|just|partly|partially|barely) "
    r"(?:skimm|glanc|skipp|scann|look|read|check|review|test|ran|tri|spot)[a-z]*"
)
# A modal of ability or a perfect negated: something was not done ('could not be executed',
# "haven't run", 'have not been exercised'); told by the reviewer (`_FIRST_PERSON`).
_NOT_DONE = compile_lazily(
    r"(?<![a-z])(?:could(?:n't|n’t| not)|can(?:'t|’t|not| not)|unable to|not able to|"
    r"(?:have|has|had)(?:n't|n’t| not)(?: yet)?(?: been)?|did(?:n't|n’t| not) get to)"
    r"(?![a-z])"
)
_FIRST_PERSON = compile_lazily(r"(?<![a-z])(?:i|me|my|we|us|our)(?![a-z])")
_POLARITY = compile_lazily(r"(?<![a-z])(?:any|anything|anyone|anywhere|ever)(?![a-z])")


# Closed-class English words that make a clause something other than a report of what is:
# a modal of obligation, wish or hedge ('must', 'should', 'would', "I'd like", 'let's',
# 'please') or a subordinator that waits for an event ('unless', 'pending'). Not the
# requirement names 'must-haves' / 'Must NOT Have', nor a counterfactual ('it would crash
# without the guard'), nor words inside a quoted value ('status "Complete (fix pending)"').
_QUOTED = compile_lazily(r'"[^"]*"|“[^”]*”')
# Work the sentence places in a later unit of the plan is advice for later, like post-merge
# advice: 'This test code should be removed when implementing the UI in Story 1.3.'
_LATER_WORK = compile_lazily(
    r"(?<![a-z])(?:in|during|for|with|by) (?:the |a )?(?:next|later|future|follow-?up|"
    r"subsequent|upcoming|separate) (?:story|task|phase|pr|pull request|iteration|sprint|"
    r"release|milestone|ticket|issue)|(?<![a-z])(?:in|during|for|by) (?:story|task|phase|"
    r"epic|milestone|sprint) \d+(?:\.\d+)*(?![\d.]*[a-z])|(?<![a-z])when implementing(?![a-z])"
)
# A clause whose subject is the verdict itself ('The approval above no longer holds', 'My
# LGTM was premature', 'This sign-off is void'): after the verdict it says something about
# the decision — only the verdict decides, so it is not a reason. The nouns name the verdict.
# 'The' points at it only with a word that places it ('the approval above', 'the earlier
# verdict'): 'The decision rests on the suite' gives the reasons of the verdict itself.
_VERDICT_NAME = (
    r"(?:approval|verdict|decision|sign[- ]?off|lgtm|go[- ]ahead|green light|thumbs[- ]up)s?"
)
_ABOUT_THE_VERDICT = compile_lazily(
    rf"[ \t*_>-]*(?:(?:(?:this|that|my|our|its|his|her|their) )"
    rf"(?:(?:above|earlier|previous|prior|original|initial|first|last|preceding) )?{_VERDICT_NAME}"
    rf"|(?:the )?(?:above|earlier|previous|prior|original|initial|preceding) {_VERDICT_NAME}"
    rf"|(?:the )?{_VERDICT_NAME} (?:above|given above|given earlier|before this))(?![a-z-])"
)
# Aspect: a negation with 'yet' in one clause, or 'yet to' / 'still to', tells something
# expected and not done ('The DBA has not signed off yet', 'The load test is yet to run').
# So does 'still' or 'remain(s)' before a state of open work (the closed class a result
# field's open values take: 'The race in `claim_job()` remains unresolved', 'Finding 1 is
# still open', 'The rollback script is TBD'), the English counterpart of `_STILL_ELSEWHERE`
# (whose bare adverbs need no predicate: English 'still' also keeps what holds, 'the old
# API still works'). Not 'remained' (told as past: 'remained open until round 2').
_OPEN_STATE = (
    r"(?:open|missing|pending|outstanding|unresolved|unfixed|unaddressed|incomplete|"
    r"unfinished|untested|unimplemented|unreviewed|tbd|todo|to do|in progress|"
    r"to be (?:done|fixed|addressed|written|decided|determined))"
)
_STILL_TO_COME = compile_lazily(
    r"(?:(?<![a-z])(?:not|never)|n't)(?![a-z])[^.;:!?]{0,80}?(?<![a-z])yet(?![a-z])|"
    r"(?<![a-z])(?:yet|still) to(?![a-z])|"
    rf"(?<![a-z])(?:still|remains?)[ \t]+{_OPEN_STATE}(?![a-z])|"
    r"(?<![a-z])(?:is|are)[ \t]+(?:tbd|todo|to be determined)(?![a-z])|"
    # a present copula before a state that is the negation of done ('Two of the five
    # acceptance criteria are unmet', 'The edge case is untested'); not 'open' or 'missing',
    # which describe the code as often ('the dialog is open')
    r"(?<![a-z])(?:is|are)[ \t]+(?:unmet|unresolved|unaddressed|unfixed|untested|"
    r"unimplemented|outstanding)(?![a-z])"
)
# A negation before an open state in its clause denies it ('No findings remain open',
# 'nothing is still pending').
_DENIED = compile_lazily(
    r"(?<![a-z])(?:no|not|none|nothing|zero|0|neither|nor|without)(?![a-z])|n't"
)
_CLAUSE_START = ".;:!?,"
# The longest negation ('nothing', 'without') and the letter after it.
_DENIED_REACH = 8


def _still_to_come(lowered: str) -> re.Match[str] | None:
    """The first `_STILL_TO_COME` match that no negation before it in its clause denies.
    Linear: each match reads only the text since the last one (and `_DENIED_REACH` back)."""
    start = searched = 0  # the clause's start; where the last search for a negation ended
    denied = False  # a negation stands in the clause, whatever follows
    for found in _STILL_TO_COME.finditer(lowered):
        if found.group(0).startswith(("not", "never", "n't", "yet", "still to")):
            return found
        clause = max(lowered.rfind(c, searched, found.start()) for c in _CLAUSE_START) + 1
        if clause > start:
            start, searched, denied = clause, clause, False
        if not denied:
            negation = _DENIED.search(lowered, max(start, searched - _DENIED_REACH), found.start())
            if negation is None:
                return found
            # a negation the search's end cut short may be a longer word ('no' of 'nobody')
            denied = negation.end() < found.start()
        searched = found.start()
    return None


# Of those, the modals of obligation: what a check handed to a person expects to happen
# ('The dialog should close', 'Dates must show in local time').
_OBLIGATION = compile_lazily(r"must|mustn't|should|shouldn't|shall|ought|needs? to|ha(?:s|ve) to")
_NOT_INDICATIVE = compile_lazily(
    r"(?<![a-z])(?:must(?![-_ ]?(?:not[-_ ])?haves?)|mustn't|should|shouldn't|shall|ought|"
    r"(?:i|we) would|would (?:like|prefer|rather|want|wait|hold|suggest|recommend|ask)|"
    r"needs? to|ha(?:s|ve) to|let's|let us|please|kindly|i'd|we'd|you'd|unless|"
    r"pending|provided that|as soon as)(?![a-z])"
)


# A clause after the verdict whose noun phrase is the verdict itself ('the approval above
# no longer stands', 'I can't stand behind the yes I gave') says something about the
# decision, not about the change: it is no reason for it. The nouns name a verdict field's
# value; the determiner and what follows the noun are closed classes (a pronoun, an
# auxiliary, an adverb of place or time, a preposition, the clause's end), so a compound
# such as 'the approval flow' or 'the approval API' is a domain noun, not the verdict.
_OWN_VERDICT = compile_lazily(
    r"(?<![\w-])(?:the|my|this|that|our|its|your)[ \t]+"
    r"(?:(?:above|earlier|previous|prior|initial|first|original|own|whole)[ \t]+)?"
    r"(?:approval|sign[- ]?off|verdict|lgtm|yes|go[- ]ahead|green[ -]light|\+1|"
    r"thumbs[- ]up|ship[- ]it)"
    r"(?=[ \t]*(?:[.,;:!?)—–-]|$)|[ \t]+(?:i|we|you|is|was|are|were|has|had|have|can|could|"
    r"will|would|does|did|still|no|not|above|below|earlier|before|here|now|from|of|in|on|at|"
    r"for|to)(?![\w'’-]))"
)


# 'First', 'before that' and 'hold' in the other read languages: work asked for before the
# merge, or the merge held ('Prima però va corretta …', 'Vorher bitte …', 'Сначала
# исправьте …', '暂缓合并', 'マージは保留', '머지 보류'). Words, not grammar: the English
# clause grammar above has no counterpart for them.
_HOLD_ELSEWHERE = compile_lazily(
    r"(?<![^\W\d_])(?:prima (?:però|va|vanno|bisogna|occorre|di tutto)|"
    r"antes (?:hay que|de nada|de eso|de todo|disso|é preciso)|primero (?:hay que|se debe)|"
    r"primeiro (?:é preciso|corrijam|corrija)|(?:vorher|zuerst) (?:bitte|muss|müssen|noch)|"
    r"il faut d'abord|d'abord (?:corriger|corrigez|réparer|revenir)|"
    r"eerst (?:moet|moeten|nog)|(?:сначала|сперва) (?:исправ|нужно|надо|почин|откат|верн)|"
    r"прежде (?:чем|всего))"
    r"|(?<![^\W\d_])(?:a condizione|a patto che|à condition|a condición|com a condição|"
    r"sob a condição|unter der bedingung|op voorwaarde|при условии)(?![^\W\d_])"
    r"|暂缓|先修复|先处理|先解决|先回滚|再合并|保留合并|合并保留|保留してください|マージは保留|"
    r"保留です|まず修正|보류|먼저"
)


# Aspect in the other read languages: the adverbs of 'still' / 'not yet' (closed class) tell
# something expected and not done, as English 'not … yet' and 'still to' do
# (`_STILL_TO_COME`): 'Todavía falta la migración inversa', 'Il manque encore …', 'O deploy
# ainda depende …', 'пока не исправлена', '尚未修复', 'まだ直っていない', '아직'.
_STILL_ELSEWHERE = compile_lazily(
    r"(?<![^\W\d_])(?:todav[ií]a|aún|ainda|encore|pas encore|noch nicht|noch kein\w*|"
    r"ancora|non ancora|пока|ещ[её] не|до сих пор)(?![^\W\d_])"
    r"|尚未|还没|还未|仍未|まだ|아직"
)


def hold_in(value: str) -> str | None:
    """The 'first', 'hold' or 'on condition' word of another read language in a cleaned
    text after an approval, or None."""
    held = _HOLD_ELSEWHERE.search(value)
    return None if held is None else held.group(0)


def other_verdict(value: str) -> str | None:
    """The verdict other than yes that a cleaned clause opens with and ends on ('No.',
    'do not merge'), or None."""
    other = next((h for h in hits(value) if _other_verdict(value, h)), None)
    return other.phrase if other is not None else None


def _opening_problem(text: str, value: str, *, narrative: bool) -> str | None:
    words = [_CONTRACTION.sub("", w.lower()) for w in WORD.findall(text)]
    if not words or words[0] in _SUBJECT_OPENERS or words[0] == "code":
        return None
    if declares_non_blocking(value):
        return None  # '… — not a blocker.': a negator opens it, not a verb
    if narrative:
        return _narrative_opening(text, value, words)
    if _opens_condition(words) and not _AFTER_MERGE.match(text.lstrip(" \t*_>-")):
        # advice placed after the merge ('After merge, …') holds nothing back, here as in a
        # review part (`_subordinate_problem`)
        return "opens with a condition, not a reason"
    if len(words) >= 2 and words[1] in _WAITING and not _told_after(text, words):
        # 'Hold until …', 'hold --until security-signoff': the verb waits for an event
        return "opens with a verb and what it waits for (an instruction), not a reason"
    return _instruction(words, value)


# The negated auxiliary of a clause with no subject: 'Do not submit …', "Don't land it":
# the imperative's own form (with a subject it is a statement: 'We do not log tokens').
_NEGATED_DO = (("do", "not"), ("don't",), ("dont",), ("don’t",))


_NEGATED_VERB = "opens with a negated verb and no subject (an instruction), not a reason"


def _label_problem(label: str) -> str | None:
    """A label that is itself a clause: a negative imperative ('**Do not submit:** …') or
    a verdict other than yes, whole ('Not compliant:', 'Changes requested:'). What it
    labels is that clause's reason, so the label is read, not only its value."""
    if negative_imperative([w.lower() for w in WORD.findall(label)]):
        return _NEGATED_VERB
    if label_says_no(label):
        return "is a label that says no, set after the approval"
    return None


def label_says_no(label: str) -> bool:
    """The label's words, whole, are one verdict phrase other than yes ('Not compliant',
    'Needs work'); a label that names a thing beside it ('Rejected alternatives', 'Blocking
    issues') is a key."""
    value = clean_value(norm(label.strip(" \t*_`:：")).lower())
    said = hits(value)
    return (
        len(said) == 1
        and said[0].start == 0
        and said[0].end == len(value)
        and said[0].decision not in (None, _A)
    )


def negative_imperative(words: list[str]) -> bool:
    """The clause's words (lower-cased) open with a negated 'do' and a verb after it, or
    with 'never' and a bare verb ('Never submit this'; not a past form, a gerund or a
    third person, 'Never failed', 'Never happens', which tell what is): a negative
    imperative, which tells the reader what not to do (an instruction) whatever its verb."""
    if len(words) > 1 and words[0] == "never":
        verb = words[1]
        return not (_reports(verb) or verb.endswith("s") or verb in _IRREGULAR_PAST)
    for opening in _NEGATED_DO:
        size = len(opening)
        if tuple(words[:size]) == opening and len(words) > size:
            return True
    return False


def _told_after(text: str, words: list[str]) -> bool:
    """'Re-verified after gap closure.': a past form, then 'after' and no clause that waits
    for an event (`awaited_event`) — an account of what was done and when, no instruction.
    'Merge after the fix lands' (a bare verb), 'Approved after CI passes' (a present verb
    in the clause) still wait."""
    if words[1] != "after" or not _reports(words[0]) or words[0].endswith("ing"):
        return False
    return awaited_event(text.lower()) is None


def _opens_condition(words: list[str]) -> bool:
    """'Unless …', 'Not before the DBA signs off': a (negated) subordinator opens it."""
    negated = words[0] in _NEGATORS and len(words) > 1 and words[1] in _SUBORDINATORS
    return words[0] in _SUBORDINATORS or negated


def _instruction(words: list[str], value: str) -> str | None:
    if negative_imperative(words):
        return _NEGATED_VERB
    if len(words) < 2 or words[1] not in _OBJECT_OPENERS:
        return None
    said = hits(value)
    if said and said[0].start == 0 and said[0].decision is _A and words[1] not in _LIMITING:
        return None  # 'Ship it.', 'ship the whole change': the yes again, as a verb
    return "opens with a verb and its object (an instruction), not a reason"


def _narrative_opening(text: str, value: str, words: list[str]) -> str | None:
    """How a review part's sentence opens: an account of what was done ('Reviewed the
    brief', 'Enumerating the prefixes …'), a clause going on from the line above ('is the
    part …') and a quantifier ('only `Transport` is overwritten') are statements; a
    subordinator opens a condition unless it narrates (`_subordinate_problem`)."""
    if _reports(words[0]) or words[0] in _LINKING:
        return None
    if words[0] == "only" and len(words) > 1 and words[1] not in _SUBORDINATORS:
        return None
    if _opens_condition(words):
        return _subordinate_problem(text, words)
    return _instruction(words, value)


# A narrative clause may open with a linking verb: it goes on from the line above.
_LINKING = word_set("is are was were has had")
# "That's …", "It's …": the subject opener without its contraction.
_CONTRACTION = compile_lazily(r"['’](?:s|re|ll|ve|d)$")
# Verbs that are no account of what was done though they end like a past form or a gerund.
_NOT_REPORTS = word_set("proceed succeed exceed need feed seed speed embed shed shred bring string")


# Irregular past forms a reviewer tells what was done with ('Ran the whole suite'); not the
# ones that are also a bare verb ('put', 'set', 'read', 'cut').
_IRREGULAR_PAST = word_set(
    "ran reran saw found wrote rewrote made took built rebuilt did got went kept sent spent "
    "brought caught thought began"
)


def _reports(word: str) -> bool:
    """A past form or a gerund opens the clause: an account of what was done ('Reviewed the
    brief', 'Ran the suite', 'Enumerating the prefixes shows …'), not a request."""
    if word in _IRREGULAR_PAST:
        return True
    if word in _NOT_REPORTS or len(word) < 5:
        return False
    return (word.endswith("ed") and not word.endswith("eed")) or word.endswith("ing")


# After these, the subordinate clause is about what follows the merge ('After merge, enable
# the flag for internal users first'): advice for later, not a condition on this change.
_AFTER_MERGE = compile_lazily(
    r"(?:after|once)[ \t]+(?:the[ \t]+|this[ \t]+)?(?:merge|merging|landing|release|deploy|"
    r"deploying|rollout|shipping)(?![a-z])",
    re.IGNORECASE,
)


def _subordinate_problem(text: str, words: list[str]) -> str | None:
    """A clause that opens with a subordinator: a condition, unless its subordinate part
    narrates what was done ('After removing the canaries, the restored …': a gerund, then a
    main clause read like any) or places advice after the merge."""
    if _AFTER_MERGE.match(text.lstrip(" \t*_>-")):
        return None
    _, comma, main = text.partition(",")
    if comma and len(words) >= 2 and _reports(words[1]):
        return _opening_problem(main, clean_value(main.lower()), narrative=True)
    return "opens with a condition, not a reason"
