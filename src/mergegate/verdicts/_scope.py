"""Which part of the change an approving answer covers, when it names one after the token.

An answer that names a part of the change right after its affirmative token, in any
punctuation — `Yes; scope: frontend`, `Yes → merge the web package`, `Ship it: the CLI
part`, `APPROVE — frontend changes`, `Approve | backend`, `LGTM, applies to the docs` — is
not an unconditional approval of the whole change (`docs/verdicts.md`, *Scope*). Two shapes
name a part, each from closed sets, read on the rest of the answer's clause:

* a *scope lead* (`scope:`, `covers`, `applies to`, `limited to`, `partial`, `merge the`,
  `ship the` …) followed by anything but the change as a whole (`merge it`, `ship the PR`);
* a bare noun phrase (at most six words, no verb from the closed list of predicates) that
  ends the clause on a word naming a part of a code base (`package`, `frontend`, `CLI`,
  `docs`, `phase 2`, a path such as `src/web/**`): a reason says something about its subject
  (`Phase 1 fully closed`, `the migration is reversible`), a scope only names it.

A praise word before the part (`great docs`, `solid backend`) makes it an evaluation, not a
scope. Only ever keeps an answer from approving: a part missing here refuses nothing.
"""

from __future__ import annotations

from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._vocab import phrases

__all__ = ["named_part", "unreviewed_part"]

_WORDS = compile_lazily(r"[^\s,;:()\[\]|→=>—–]+")
_LEADS = compile_lazily(
    r"(?:(?:the )?scope(?:d)?(?: is| to| of| =)?|scoped to|covers|covering|covered|"
    r"applies to|applying to|applicable to|limited to|restricted to|confined to|partial(?:ly)?|"
    # A preposition of topic limits the approval to its object ('regarding the logging
    # changes', 'as far as the schema goes'); not 'as far as I can tell', a hedge's frame.
    r"regarding|concerning|as regards|with (?:respect|regard) to|in (?:respect|regard) to|"
    r"in terms of|as far as(?! (?:i|we|my|our|anyone|i'm|i've)(?!\w))|"
    r"(?:approve|approving|merge|merging|ship|shipping|land|landing|release|releasing)"
    r"(?= (?:the|only|just|of)(?!\w))|just|solely|exclusively)(?!\w)"
)
# What a scope lead may name without narrowing the approval: the change as a whole.
_WHOLE = frozenset(
    phrases(
        """it|this|everything|all|all of it|the lot|the pr|this pr|the change|the changes|
this change|the whole change|the whole pr|the whole thing|the entire change|the entire pr|the patch|
the diff|the branch|the mr|the pull request|as is|now|immediately|today|asap"""
    )
)
_PART_NOUNS = frozenset(
    phrases(
        """part|parts|portion|portions|half|side|piece|bit|bits|subset|slice|package|packages|pkg|
module|modules|component|components|layer|layers|service|services|crate|crates|directory|
directories|folder|folders|dir|file|files|path|paths|frontend|front end|front-end|backend|
back end|back-end|client|server|api|cli|ui|ux|gui|docs|doc|documentation|readme|changelog|
migration|migrations|schema|database|db|infra|infrastructure|config|configuration|web|mobile|
ios|android|desktop|subsystem|workspace|app|apps|library|lib|sdk|plugin|plugins|scripts|
tooling|styles|css|assets|handler|handlers|endpoint|endpoints|route|routes|controller|
controllers|model|models|view|views|tests|test suite|fixtures|workflow|workflows|pipeline|
deployment|helm chart|chart|charts|terraform|dockerfile|parser|renderer|worker|workers"""
    )
)
# Words after a part that keep it a part: 'frontend changes', 'the web package code'.
_PART_TAILS = frozenset(phrases("""changes|change|code|work|stuff|bits|side|part|portion|half"""))
# A numbered part: 'phase 2', 'task 3', 'step 1', 'commit abc123'.
_NUMBERED = compile_lazily(
    r"(?:phase|task|step|stage|milestone|track|wave|part|commit|commits|section|item)s?"
    r"[ \t]*#?[0-9a-f]{1,40}(?:[ \t]*(?:and|&|,)[ \t]*#?[0-9a-f]{1,40})*"
)
# A path or a glob: 'src/web/**', 'packages/web', 'client.py', '*.ts'.
_PATH = compile_lazily(
    r"[\w.*-]*/[\w./*-]*|\*[\w.*-]+|[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|md|java|rb)"
)
_PREDICATES = frozenset(
    phrases(
        """is|are|was|were|be|been|being|has|have|had|does|do|did|can|could|may|might|will|would|
should|must|shall|looks|look|seems|seem|works|work|passes|pass|passed|meets|meet|met|fixes|
fixed|adds|added|handles|handled|keeps|kept|closes|closed|remains|stays|reads|holds|covers|
solves|solved|resolves|resolved|addresses|addressed|improves|improved|makes|made|brings|
goes|went|needs|need|lacks|misses|breaks|broke|fails|failed|ready|done|complete|completed|
exists|exist|runs|ran|builds|built|compiles|compiled|returns|returned"""
    )
)
_PRAISE = frozenset(
    phrases(
        """good|great|nice|solid|clean|excellent|well structured|well-structured|well tested|
well-tested|thorough|careful|tidy|clear|robust|neat|elegant|strong|comprehensive|lovely|
impressive|superb|perfect|fine|awesome|cleaner|better|improved|simpler"""
    )
)
_PREPOSITIONS = frozenset(phrases("""of|in|on|to|for|across|with|from|by|under|inside|within"""))
_DETERMINERS = frozenset(phrases("""the|a|an|this|that|these|those|our|its|their|your|my"""))
# A stop inside a word ('core.py', 'a:b') ends no clause.
_CLAUSE_END = compile_lazily(r"[.;:!?](?=\s|$)|[)\]]|(?<=\S)[ \t]+[—–][ \t]+|$")
_MAX_PHRASE_WORDS = 6


# What the reviewer says they did not read (`unreviewed_part`): a first-person "I have not
# reviewed / opened / looked at", a part that "was not reviewed", one "outside this review",
# "not part of this review" or "in another reviewer's queue". First person or the review
# itself as the frame: the same verbs about the code ('the parser no longer reads the
# config', 'the file is not opened for writing') are behaviour, not scope.
_UNREVIEWED = compile_lazily(
    r"(?<![a-z])(?:i (?:have not|haven't|did not|didn't|could not|couldn't|was not able to|"
    r"wasn't able to|have yet to|never) (?:yet )?(?:review|open|read|look at|look into|examine|"
    r"get to|go through)|"
    r"(?:were|was|are|is|have|has|been) (?:not|n't)(?: been)? (?:yet )?(?:reviewed|looked at|"
    r"examined)|"
    r"(?:outside|beyond) (?:of )?(?:this|the|my) (?:review|pass)|"
    r"not (?:part of|covered by|included in) (?:this|the|my) review|"
    r"(?:another|a different|other) reviewer'?s? queue|"
    r"(?:left|leave|leaving) (?:for|to) (?:another|a different|a second) reviewer)"
)


def unreviewed_part(text: str) -> str | None:
    """The words by which a normalized line says part of the change was not reviewed
    (`the other 7 files were not reviewed`, `Commits 5–9 I haven't opened`, `the last two
    commits are outside this review`), or None. What the reviewer did not read is a partial
    scope: the approval does not cover the whole change."""
    found = _UNREVIEWED.search(text)
    return found.group(0) if found is not None else None


def named_part(clause: str) -> str | None:
    """The part of the change the rest of an approving answer's clause names (normalized,
    markup removed), or None when it names none."""
    body = clause.lstrip(" \t;:,→=>—–-/|([").lstrip()
    if body.startswith(("scope", "covers", "applies", "limited", "partial")) or _LEADS.match(body):
        return _after_lead(body)
    end = _CLAUSE_END.search(body)
    phrase = body[: end.start() if end is not None else len(body)].strip()
    return phrase if _is_part_phrase(phrase) else None


def _after_lead(body: str) -> str | None:
    lead = _LEADS.match(body)
    rest = body[lead.end() :] if lead is not None else body
    rest = rest.lstrip(" \t:=→>-")
    end = _CLAUSE_END.search(rest)
    named = rest[: end.start() if end is not None else len(rest)].strip(" *_`'\"")
    if not named or named in _WHOLE or named.removeprefix("only ").strip() in _WHOLE:
        return None
    return body[: (lead.end() if lead is not None else 0) + len(named) + 2].strip()


_TALLY = compile_lazily(r"(\d{1,4})[ \t]*/[ \t]*(\d{1,4})")
# 'Not applicable' abbreviated: a slash that is not a path.
_NOT_APPLICABLE = frozenset({"n/a", "n.a", "na"})


def _is_part_phrase(phrase: str) -> bool:
    """A short noun phrase without a predicate that ends on a part ('the CLI part',
    'frontend changes', 'packages/web', 'phase 2', 'changes in packages/web'); a phrase
    whose head is something else is about that ('notable cleanup of the parser')."""
    bare = phrase.strip(" *_`()（）.")
    if bare in _NOT_APPLICABLE:  # 'PASS (n/a)': the check did not apply, no part is named
        return False
    tally = _TALLY.fullmatch(bare)
    if tally is not None:  # '(11/11)': a count of what passed, a part only when it falls short
        return int(tally.group(1)) < int(tally.group(2))
    words = _WORDS.findall(phrase)
    # 'Proceed to Week 5-6': where the approval lets the work go, not a part of it.
    if not words or len(words) > _MAX_PHRASE_WORDS or words[0] == "to":
        return False
    if any(w in _PREDICATES for w in words) or _praised(words):
        return False
    cut = next((i for i, w in enumerate(words) if w in _PREPOSITIONS), len(words))
    head = [w for w in words[:cut] if w not in _DETERMINERS and w not in _PART_TAILS]
    if head:
        return _ends_on_part(words[:cut])
    return cut < len(words) and _ends_on_part(words[cut + 1 :])


def _ends_on_part(words: list[str]) -> bool:
    while len(words) > 1 and words[-1] in _PART_TAILS:
        words = words[:-1]
    if not words:
        return False
    last, tail = words[-1], " ".join(words[-3:])
    numbered = _NUMBERED.search(tail)
    return (
        last in _PART_NOUNS
        or " ".join(words[-2:]) in _PART_NOUNS
        or _PATH.fullmatch(last) is not None
        or (numbered is not None and numbered.end() == len(tail))
    )


def _praised(words: list[str]) -> bool:
    content = [w for w in words if w not in _DETERMINERS]
    return bool(content) and (content[0] in _PRAISE or " ".join(content[:2]) in _PRAISE)
