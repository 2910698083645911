"""A subordinate clause that waits for an event: the clause it hangs from holds only then.

'No issues remaining after the migration lands', 'Nothing blocking once the flag is off',
'Clean until the vendor ships the new schema', 'No blockers if the load test comes back
clean': a subordinator (closed class: `once`, `after`, `until`, `unless`, `as soon as`,
`provided`, `if`, `when`, `as long as`, `by the time`, `assuming`, `given that` …)
followed by a subject and a finite verb in the present or the future tells an event that
has not happened; what the main
clause says is true only after it — a condition, wherever the clause stands. The same
subordinator before a past or perfect verb ('after the fixes were applied', 'once the
rebase had landed') or before a noun phrase alone ('after the rebase', 'after merging')
tells what was done, and is no condition. `until`, `till` and `unless` wait whatever the
tense of a present or perfect verb ('until the fix has landed').

Grammar only: the subordinators, auxiliaries and the verb's inflection are closed classes;
no word of what the event is. Linear in the text.
"""

from __future__ import annotations

from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._vocab import word_set

__all__ = ["awaited_event", "main_clause", "told_after"]

# The subordinator and the words of its clause, up to the clause's punctuation.
_SUBORDINATE = compile_lazily(
    r"(?<![\w-])(once|after|until|till|unless|as soon as|provided(?: that)?|providing(?: that)?|"
    r"(?<!as )(?<!even )(?<!what )if|(?<!even )when|whenever|(?:as|so) long as|by the time|"
    r"(?<!at )(?<!for )the (?:moment|minute|instant)|assuming(?: that)?|supposing(?: that)?|"
    r"in case|in the event(?: that)?|on (?:the )?condition(?: that)?|given that)"
    r"[ \t]+([^,;:.!?—–()\n]{1,120})"
)


_WORD = compile_lazily(r"[a-z][a-z'’-]*")
_PAST = word_set("was were had did")
_PRESENT = word_set("is are am will shall gets get goes go comes come 's 'll")
_PERFECT = word_set("has have")
# Waiting whatever the verb: the clause is the condition itself.
_ALWAYS_WAITING = word_set("until till unless")
# The subject's first words are no verb ('the', 'this migration'): the verb stands after.
_DETERMINERS = word_set("the a an this that these those its their our your my every each")
# A subject pronoun stands right before its verb ('once it lands', 'after we ship').
_PRONOUNS = word_set("it they we i you he she someone somebody")
_VERB_REACH = 6


def awaited_event(lowered: str) -> tuple[int, str] | None:
    """Where the subordinate clause of `lowered` (lower-cased prose) that waits for an event
    starts and its text as evidence, or None (module docstring)."""
    for found in _SUBORDINATE.finditer(lowered):
        subordinator = found.group(1).split()[0]
        words = _WORD.findall(found.group(2))[:_VERB_REACH]
        tense = _tense(words)
        if tense == "present" or (tense == "perfect" and subordinator in _ALWAYS_WAITING):
            return found.start(), found.group(0).strip()[:60]
    return None


# Where a clause ends inside a sentence: a comma, a dash, a parenthesis, a semicolon.
_CLAUSE_EDGE = compile_lazily(r"[,;:()—–]")


def main_clause(lowered: str, start: int) -> str:
    """The clause the subordinate one at `start` hangs from: the words before it since the
    last clause edge ('no impact (validation only happens when …' hangs from 'validation
    only happens'), or, when it opens its sentence ('When the call returns, the loop
    breaks'), the clause after the first comma after it."""
    before = lowered[:start]
    edges = [m.end() for m in _CLAUSE_EDGE.finditer(before)]
    main = before[edges[-1] :] if edges else before
    if main.strip(" \t*_>-"):
        return main
    comma = lowered.find(",", start)
    if comma < 0:
        return ""  # the subordinate clause alone: a bare condition ('Once CI is green.')
    closes = _CLAUSE_EDGE.search(lowered, comma + 1)
    return lowered[comma + 1 : closes.start() if closes else len(lowered)]


def _tense(words: list[str]) -> str | None:
    """The tense of the clause's finite verb ('present', 'past', 'perfect'), or None when
    no verb stands in its first words (a noun phrase: 'after the rebase')."""
    if words and _participle(words[0]):
        return None  # 'when re-executed against …': a reduced clause, no subject, no event
    for index, word in enumerate(words):
        tense = _auxiliary_tense(word.replace("’", "'"))
        if tense is None and index and words[index - 1] not in _DETERMINERS:
            tense = _inflected_tense(word)  # not the subject's own words ('the fixes')
        if tense is not None:
            return tense
    if len(words) >= 2 and words[0] in _PRONOUNS:
        return "present"  # 'once it lands', 'after we ship': the pronoun's bare verb
    return None


def _participle(word: str) -> bool:
    """'executed', 'merged' (not 'seed', 'feed': `_past_form`); a noun in -ing ('staging')
    may be the subject, so only the past form opens a reduced clause."""
    return _past_form(word)


def _past_form(word: str) -> bool:
    return word.endswith("ed") and not word.endswith("eed")


def _auxiliary_tense(word: str) -> str | None:
    if word in _PAST:
        return "past"
    if word in _PERFECT:
        return "perfect"
    return "present" if word in _PRESENT or word.endswith("'ll") else None


def _inflected_tense(word: str) -> str | None:
    """'landed' is past, 'lands' present; 'process', 'status', 'this' are no verb forms."""
    if _past_form(word):
        return "past"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return "present"
    return None


# An answer's own clause that goes on with 'after' and what was done: 'after fresh final
# review', 'after the fixes were applied'. Up to the clause's punctuation. A parenthesis is
# no part of the clause: '(after gap closure)' is a qualifier, read by the template that
# writes it (GSD's re-verification record) or as written, unless it tells its outcome too
# (`_told_in_parenthesis`).
_AFTER_CLAUSE = compile_lazily(
    r"[ \t]+(?:after|following|upon)[ \t]+([^,;:.!?—–()\n]{1,80})(?![(])"
)
# A plural-looking word ('fixes', 'tests') followed by another word may be a subject and its
# bare present verb ('after the fixes land', 'after tests pass'): not told as done.
_PLURAL_THEN_WORD = compile_lazily(r"(?<![a-z])[a-z]*[a-hj-rtv-z]s[ \t]+[a-z]")


def told_after(lowered: str, *, result: bool = False) -> int:
    """The length of a clause that opens `lowered` (the text right after a past-participle
    answer, 'APPROVED after fresh final review') with `after` and tells what was done: a past
    or perfect verb ('after the fixes were applied'), or a noun phrase that names the review
    itself ('after the second review', `_REVIEW_ACTS`). 0 when there is none, or
    the clause waits for an event ('after the fix lands', 'after tests pass', 'after we
    ship'): then the answer is conditional, as the readers of the answer decide.

    `result`: the answer is the result of a check ('passed', 'clean'), a state only a run
    reaches; what that run came after was done before it, so any noun phrase there is
    history too ('clean after gap closure plans 22-06 and 22-07', 'passed after fixes'). A
    finite clause is read as above: 'passed after the fix lands' still waits. A parenthesis
    is history only with its outcome (`_told_in_parenthesis`)."""
    found = _AFTER_CLAUSE.match(lowered)
    if found is None:
        return _told_in_parenthesis(lowered, result)
    phrase = _NAMED_RECORD.sub(" record ", found.group(1)) if result else found.group(1)
    words = _WORD.findall(phrase)[:_VERB_REACH]
    # An auxiliary decides before an inflected word: 'the replay tests were added' is past
    # ('tests' is the subject, not a verb).
    auxiliary = (_auxiliary_tense(w.replace("’", "'")) for w in words)
    tense = next((t for t in auxiliary if t is not None), None) or _tense(words)
    if tense in ("past", "perfect"):
        return found.end()
    if tense is None and _PLURAL_THEN_WORD.search(phrase) is None:
        return found.end() if result or _head_noun(words) in _REVIEW_ACTS else 0
    return 0


# A noun and the identifiers that name its records ('plans 22-06 and 22-07', 'commit
# 4f2a91c', 'PR #12'): one noun phrase, not a subject and its verb ('plans' is no verb
# before an identifier).
_NAMED_RECORD = compile_lazily(
    r"(?<![\w-])[a-z]+(?:[ \t]+#?[a-z]*\d[\w./#-]*(?:,|[ \t]+(?:and|&))?)+"
)


# A noun phrase after 'after' is history only when it names the review itself — the act
# whose verdict this is, done by the time the verdict is written ('after fresh final
# review', 'after a second pass over the handler'). Any other noun phrase may name work
# still to come ('Approved after the token fix'): a condition, as before.
_REVIEW_ACTS = word_set(
    "review re-review rereview reviews pass passes round rounds look reading verification "
    "re-verification reverification audit inspection iteration check re-check recheck"
)
# Prepositions end a noun phrase's head: 'a second pass over the handler' → 'pass'.
_PREPOSITIONS = word_set("of over on in for by at with from to across through into under")


def _head_noun(words: list[str]) -> str:
    """The last word of a noun phrase before its first preposition ('' when none)."""
    head = ""
    for word in words:
        if word in _PREPOSITIONS:
            break
        head = word
    return head


# A parenthesis right after the answer that opens with 'after' ('clean (after fix pass —
# all findings resolved; 5 info findings accepted)'): its text, without nested brackets.
_AFTER_PARENTHESIS = compile_lazily(r"[ \t]*\((?=after[ \t])([^()\n]{1,200})\)")
_HISTORY_CLAUSE_END = compile_lazily(r"[;,—–]|[ \t]-{1,2}[ \t]")
_TOKEN = compile_lazily(r"[^\s/]+")
# The closed words of a history clause: what it counts and names (quantifiers, numbers,
# severities, findings) and how it reports them done.
_COUNTED = word_set(
    "all every each both the any 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
    "critical blocker blockers blocking high major warning warnings medium important "
    "info infos minor low nit nits suggestion suggestions note notes finding findings "
    "issue issues item items comment comments"
)
_DONE_WORDS = word_set("resolved fixed addressed closed corrected remediated")
_AUXILIARIES = word_set("were are was is have has been now")
# Findings left standing are history only at a severity that never blocks.
_NON_BLOCKING = word_set("info infos nit nits suggestion suggestions note notes minor low")
_LEFT_WORDS = word_set("accepted left remaining kept")


def _history_clause(clause: str) -> bool:
    """One clause of the parenthesis, in a closed shape: findings reported done ('all
    Critical/Warning findings resolved'), or findings of a non-blocking severity left
    ('5 Info findings accepted', '3 info findings left'). Any other word ('not', 'still',
    'open', 'pending', a blocking severity left) is no history."""
    words = [w.strip(".*_`") for w in _TOKEN.findall(clause)]
    counted = [w for w in words if w in _COUNTED]
    rest = [w for w in words if w not in _COUNTED and w not in _AUXILIARIES]
    if len(rest) != 1 or not counted:
        return False
    if rest[0] in _DONE_WORDS:
        return True
    return rest[0] in _LEFT_WORDS and _NON_BLOCKING.intersection(counted) != set()


def _history_only(tail: str) -> bool:
    clauses = [c for c in _HISTORY_CLAUSE_END.split(tail) if c.strip()]
    return bool(clauses) and all(_history_clause(c) for c in clauses)


def _told_in_parenthesis(rest: str, result: bool) -> int:
    """How much of `rest` a parenthesis after the answer tells as finished history: its
    'after' phrase is done work (`told_after`: 'after fix pass', not 'after the fix lands')
    and every clause after it reports findings in a closed shape (`_history_clause`: 'all
    findings resolved', '5 info findings accepted'). Then the whole parenthesis is history.
    A parenthesis with only its 'after' phrase ('passed (after gap closure)') tells no
    outcome and stays a qualifier (GSD's template reads its own); any other word in it
    ('findings not resolved', '1 blocker still open', 'pending UAT') keeps it one too.
    0 when it is no such parenthesis."""
    found = _AFTER_PARENTHESIS.match(rest)
    if found is None:
        return 0
    phrase, *tail = _HISTORY_CLAUSE_END.split(found.group(1), maxsplit=1)
    history = " " + phrase.rstrip()
    if told_after(history, result=result) != len(history) or not _history_only("".join(tail)):
        return 0
    return found.end()
