"""Phrases composed from closed sets of parts, and the few rules that compose them.

A reviewer's "no", "done" or "must" rarely comes as a fixed phrase; it comes as a small
grammar of parts. Each rule here composes its phrase from closed sets, so a rewording of the
same statement is still read as one, and each rule is written once:

* **negated** — a negator among the words before a phrase in its clause, or before a list
  whose item it is (`negated_before`: 'no blocking issues or requested changes');
* **a negated merge** — a negator, at most two words, then a verb or state of merging
  (`negated_merge_in`: 'I would not ship this', "isn't ready", 'we can never land it');
* **told as done** — a done word, or an indicative report of one ('is fixed', 'has already
  been addressed'), that no modal turns into a demand (`told_done`: 'were corrected' is done,
  'should have been corrected' and 'must be resolved' are demands; `demanded` is that one
  modal rule).

Linear in the text each is given (callers bound it to a clause or a window).
"""

from __future__ import annotations

import re

from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._vocab import phrases

__all__ = [
    "DONE",
    "DONE_REPORT",
    "demanded",
    "negated_before",
    "negated_merge_in",
    "told_done",
]

# --------------------------------------------------------------------------- negated

_NEGATORS = compile_lazily(
    r"(?<![a-z0-9])(?:no|not|none|nothing|nobody|never|neither|nor|without|zero|0|cannot|"
    r"sin|ningún|ninguna|nada|sem|nenhum|nenhuma|sans|aucun|aucune|rien|pas|kein|keine|"
    r"keinen|nicht|nichts|ohne|нет|не|без)(?![a-z0-9])|n't(?!\w)|[无无不没没未非别别]|없"
)
# 'no blocking issues or requested changes': a negation before a list covers its items.
_NEGATED_LIST = compile_lazily(
    r"(?<![a-z0-9])(?:no|not|none|without|neither|zero|0|sin|sem|sans|ohne|kein|keine|无|没有)"
    r"(?![a-z0-9])[^,.;:!?。；]{0,60}(?<![a-z0-9])(?:or|nor|ni|nem|ou|oder|o|或)[ \t]+$"
)


def negated_before(text: str, at: int, *, words: int = 6) -> bool:
    """True when a negation stands among the `words` words before `at` in its clause, or
    before a list whose item starts at `at` ('no blocking issues or requested changes')."""
    start = max(text.rfind(sep, 0, at) for sep in (". ", "; ", ", but ", "。", "；", " — "))
    window = text[max(start, 0) : at]
    if _NEGATED_LIST.search(window[-90:]) is not None:
        return True
    window = " ".join(window.split()[-words:]) if " " in window else window[-12:]
    return _NEGATORS.search(window) is not None


# --------------------------------------------------------------------------- a negated merge

# Composed from two closed sets rather than listed sentence by sentence. A word between that
# names a blocker ('not blocking merge', "doesn't hold up shipping") turns it into a yes.
_NEGATED_MERGE = compile_lazily(
    r"(?<![\w'’])(?:not|never|cannot|can[’']?t|won[’']?t|wouldn[’']?t|shouldn[’']?t|mustn[’']?t|"
    r"don[’']?t|doesn[’']?t|isn[’']?t|aren[’']?t|dont|wont|cant|isnt|shouldnt|wouldnt)"
    r"((?:[ \t]+[^\W\d_][\w’'-]*){0,2}?)[ \t]+"
    r"(?:merge|merged|merging|mergeable|ship|shipped|shipping|shippable|land|landed|landing|"
    r"release|released|releasing|deploy|deployed|deploying|approve|approved|approving|accept|"
    r"accepted|accepting|proceed|proceeding|sign off|ready)(?![\w-])(?:[ \t-]+([^\W\d_]+))?"
)
_INVERTING = frozenset(
    phrases(
        """block|blocks|blocking|blocker|blockers|prevent|prevents|preventing|stop|stops|stopping|
hold|holds|holding|up|gate|gates|gating|delay|delays|delaying|need|needs"""
    )
)
# After the verb, a word that makes it a noun ('not merge-blocking', 'tip-not-merge-base'):
# the text reaching here has its hyphens read as spaces. Only ever keeps a sentence from
# being read as a "no" — a word missing here refuses, it never approves.
_NOUN_AFTER = frozenset(
    phrases(
        """block|blocking|blocker|blockers|base|conflict|conflicts|commit|commits|request|requests|
queue|gate|gates|gating|window|strategy|criteria|checklist|state|status|notes|note|
process|branch|branches|pipeline|build|candidate|cycle|version|date|plan|flow|script|job|
step|target|environment|config|train|time"""
    )
)
# Before the verb, a word that makes it a noun ("doesn't change the release process").
_DETERMINERS = frozenset(
    phrases("""the|a|an|this|that|these|those|our|its|their|any|my|your|his|her""")
)


# After the verb, the words that make the change its object ('would not ship this', 'not
# ready yet'); `negated_merge_in(change_only=True)` reads only these, or none.
_CHANGE_OBJECT = frozenset(phrases("this|it|yet|now|as|the change|the pr|the branch|the diff"))


def negated_merge_in(text: str, *, change_only: bool = False) -> str | None:
    """A negated merge in any wording ('I would not ship this'), as written, or None.

    `change_only`: only a verb with no object or the change as its object ('cannot approve.',
    'would not ship this'), not one whose object is something else ('must not accept
    user-supplied strings')."""
    for negated in _NEGATED_MERGE.finditer(text.lower()):
        between, after = negated.group(1).split(), negated.group(2)
        noun = (between and between[-1] in _DETERMINERS) or after in _NOUN_AFTER
        if change_only and after is not None and after not in _CHANGE_OBJECT:
            continue
        if not _INVERTING.intersection(between) and not noun:
            return text[negated.start() : negated.end(2) if after else negated.end()].strip()
    return None


# --------------------------------------------------------------------------- told as done

DONE = compile_lazily(
    r"(?<!\w)(?:fixed|resolved|addressed|corrected|remediated|closed|done|completed|implemented|"
    # the change doing it, in the present: 'the remediation closes the only blocking finding'
    r"applied|landed|closes|resolves|remediates|"
    r"executed|verified fixed|fix verified|no longer)(?!\w)|"
    r"✅|~~|已修复|已解决|修正済み|対応済み|해결|수정 완료|corregido|corrigido|corrigé|behoben"
)
"""Words that report work as done: 'fixed', 'resolved', '✅', '~~struck~~', '已修复' …"""

DONE_REPORT = compile_lazily(
    r"(?<!\w)(?:(?:is|are|was|were|has|have|had)(?: already| now| since)?(?: been)?|already|now)"
    r" (?:fixed|resolved|addressed|corrected|closed|done|implemented|applied|remediated|"
    r"repaired)(?!\w)"
)
"""A report that something is done, in the indicative: 'is fixed', 'were corrected', 'has
already been addressed', 'now resolved' — not 'must be fixed' nor 'should have been fixed'."""

# The one modal rule: a modal (and 'not', 'have', 'been'/'be') right before a done word or
# report makes it a demand: 'should have been fixed', 'must be resolved', 'needs to be done'.
_MODAL = compile_lazily(
    r"(?<!\w)(?:must|should|would|could|might|need to|needs to|has to|have to|ought to)"
    r"(?: not)?(?: have)?(?: been| be)?[ \t]*$"
)


def demanded(before: str) -> bool:
    """`before` (the text up to a done word or report) ends with a modal: a demand."""
    return _MODAL.search(before) is not None


def told_done(clause: str, words: re.Pattern[str] = DONE) -> bool:
    """`clause` tells something as done: a match of `words` (a done word; `DONE_REPORT` for an
    indicative report) that no modal before it turns into a demand."""
    return any(not demanded(clause[: m.start()]) for m in words.finditer(clause))
