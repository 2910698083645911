"""A subordinate clause that waits for an event: the clause it hangs from holds only then.

'No issues remaining after the migration lands', 'Nothing blocking once the flag is off',
'Clean until the vendor ships the new schema': a subordinator (closed class: `once`,
`after`, `until`, `unless`, `as soon as`, `provided` …) followed by a subject and a finite
verb in the present or the future tells an event that has not happened; what the main
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

__all__ = ["awaited_event", "told_after"]

# The subordinator and the words of its clause, up to the clause's punctuation.
_SUBORDINATE = compile_lazily(
    r"(?<![\w-])(once|after|until|till|unless|as soon as|provided(?: that)?|providing(?: that)?)"
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


def _tense(words: list[str]) -> str | None:
    """The tense of the clause's finite verb ('present', 'past', 'perfect'), or None when
    no verb stands in its first words (a noun phrase: 'after the rebase')."""
    for index, word in enumerate(words):
        tense = _auxiliary_tense(word.replace("’", "'"))
        if tense is None and index and words[index - 1] not in _DETERMINERS:
            tense = _inflected_tense(word)  # not the subject's own words ('the fixes')
        if tense is not None:
            return tense
    if len(words) >= 2 and words[0] in _PRONOUNS:
        return "present"  # 'once it lands', 'after we ship': the pronoun's bare verb
    return None


def _auxiliary_tense(word: str) -> str | None:
    if word in _PAST:
        return "past"
    if word in _PERFECT:
        return "perfect"
    return "present" if word in _PRESENT or word.endswith("'ll") else None


def _inflected_tense(word: str) -> str | None:
    """'landed' is past, 'lands' present; 'process', 'status', 'this' are no verb forms."""
    if word.endswith("ed"):
        return "past"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return "present"
    return None


# An answer's own clause that goes on with 'after' and what was done: 'after fresh final
# review', 'after the fixes were applied'. Up to the clause's punctuation. A parenthesis is
# no part of the clause: '(after gap closure)' is a qualifier, read by the template that
# writes it (GSD's re-verification record) or as written.
_AFTER_CLAUSE = compile_lazily(r"[ \t]+after[ \t]+([^,;:.!?—–()\n]{1,80})(?![(])")
# A plural-looking word ('fixes', 'tests') followed by another word may be a subject and its
# bare present verb ('after the fixes land', 'after tests pass'): not told as done.
_PLURAL_THEN_WORD = compile_lazily(r"(?<![a-z])[a-z]*[a-hj-rtv-z]s[ \t]+[a-z]")


def told_after(lowered: str) -> int:
    """The length of a clause that opens `lowered` (the text right after a past-participle
    answer, 'APPROVED after fresh final review') with `after` and tells what was done: a past
    or perfect verb ('after the fixes were applied'), or a noun phrase that names the review
    itself ('after the second review', `_REVIEW_ACTS`). 0 when there is none, or
    the clause waits for an event ('after the fix lands', 'after tests pass', 'after we
    ship'): then the answer is conditional, as the readers of the answer decide."""
    found = _AFTER_CLAUSE.match(lowered)
    if found is None:
        return 0
    words = _WORD.findall(found.group(1))[:_VERB_REACH]
    # An auxiliary decides before an inflected word: 'the replay tests were added' is past
    # ('tests' is the subject, not a verb).
    auxiliary = (_auxiliary_tense(w.replace("’", "'")) for w in words)
    tense = next((t for t in auxiliary if t is not None), None) or _tense(words)
    if tense in ("past", "perfect"):
        return found.end()
    if tense is None and _PLURAL_THEN_WORD.search(found.group(1)) is None:
        return found.end() if _head_noun(words) in _REVIEW_ACTS else 0
    return 0


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
