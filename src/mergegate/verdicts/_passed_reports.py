"""An item that reports a check passed: evidence, not a finding (issue 23, class 1).

Under a heading that names findings (`## Regression check`, `## Issues`) the reviewer also
lists what was run and how it came out: `- Workspace tests passed with no regressions.`,
`- Compilation: verified on build 4157+`, `- All 297 tests pass.` Such an item says nothing
is wrong and nothing is left to do; read as a finding, it refused genuine approvals.

Structure only, in two closed shapes:

* a clause whose subject's head is a check noun (what a verification runs: tests, build,
  compilation, lint, type check, CI …; the closed class a check table's first column
  holds) and whose finite verb is a passing one (`pass`, `passed`, `succeeded`, `is
  green`), with `still`/`all`/`again` between them; or a quantifier alone as the subject
  (`All pass.`, the subject elided after a count);
* a `Check: value` item whose label holds a check noun and whose value opens with a
  passing result (`pass`, `verified`, `ok`, `green`, `✅`) — a vocabulary that names a
  result field's values.

A third shape says every criterion holds: `All acceptance criteria fully met.`

Every sentence of the item must be one (or a count of the checks run, `Total tests: 271`
beside `All pass.`); and none may hold a failed result (`_FAILED`), a
negator, a contrast, a modal or a subordinator (closed classes: a pass told with `but`,
`once`, `not`, `should` is not told as plain evidence), nor a subject that counts only part
of the checks (`some`, `most`, `3 of 5`). `- Tests failed on CI` stays a finding. Linear in
the item.
"""

from __future__ import annotations

from mergegate.verdicts._patterns import compile_lazily

__all__ = ["reports_pass"]

# What a verification runs: the head of the subject or the label.
_CHECK_NOUN = (
    r"(?:tests?|testing|test[ \t-]suites?|suites?|specs?|builds?|compilation|compiles?|"
    r"lint(?:ing|er|s)?|type[ \t-]?check(?:s|ing)?|typecheck(?:s|ing)?|checks?|ci|pipelines?|"
    r"smoke[ \t-]tests?|e2e|verification|formatting)"
)
# A passing finite verb (or copula and a passing state) after the subject.
_PASSING_VERB = (
    r"(?:pass|passes|passed|succeed|succeeds|succeeded|compiles?|compiled|"
    r"(?:is|are|was|were|stays?|remains?|remained|stayed)[ \t]+(?:all[ \t]+)?"
    r"(?:green|passing|clean))"
)
_ASPECT = r"(?:(?:still|all|both|again|also|now|cleanly)[ \t]+)*"
# The subject: at most a few words before its check noun, none of them a negator or a
# quantifier of part, nor a subordinator (the clause would be subordinate).
_SUBJECT_WORD = (
    r"(?!(?:no|not|none|never|neither|nor|some|most|many|few|several|half|only|except|of|"
    r"if|when|once|until|unless|after|before)(?![\w-]))[\w`'’./+#,-]+"
)
_CLAUSE = compile_lazily(
    rf"(?:(?:{_SUBJECT_WORD})[ \t]+){{0,6}}?{_CHECK_NOUN}[ \t]+{_ASPECT}{_PASSING_VERB}"
    r"(?![\w-])(?P<rest>.*)"
)
# The subject elided after a count ('Total tests: 271. All pass.').
_ELIDED = compile_lazily(rf"(?:all|both)[ \t]+{_ASPECT}{_PASSING_VERB}(?![\w-])(?P<rest>.*)")
_LABELLED = compile_lazily(
    rf"(?:(?:{_SUBJECT_WORD})[ \t]+){{0,6}}?{_CHECK_NOUN}(?:[ \t]+\([^()]{{0,120}}\))?[ \t]*"
    r"[:：—–][ \t]*(?:pass|passes|passed|passing|ok|green|clean|succeeded|success|verified|"
    r"✅|✔|✓)(?![\w-])(?P<rest>.*)"
)
# Every criterion of the change met ('All acceptance criteria fully met', 'All must-haves
# are verified'): a quantifier of the whole, the noun a plan or a verification lists its
# criteria under, and a verb that says each holds.
_ALL_MET = compile_lazily(
    r"(?:all|every|each)[ \t]+(?:[\w-]+[ \t]+){0,4}?(?:criteria|criterion|requirements?|"
    r"must[ -]haves|goals?|truths?|success criteria|acceptance criteria)[ \t]+"
    r"(?:(?:are|is|were|was|have been|has been)[ \t]+)?(?:(?:all|fully|now|also)[ \t]+)*"
    r"(?:met|satisfied|verified|achieved|pass|passed|hold)(?![\w-])(?P<rest>.*)"
)
# A count of the checks run ('Total prior-phase tests: 271'): neutral, told beside a pass.
_COUNT = compile_lazily(
    rf"(?:(?:{_SUBJECT_WORD})[ \t]+){{0,6}}?{_CHECK_NOUN}[ \t]*[:：=][ \t]*\d[\d,]*"
)
# What keeps a pass from being plain evidence: a failed result (counted zero aside: '0
# failed', 'no errors'), a negator, a contrast, a modal, a subordinator, a part counted.
_DOUBTED = compile_lazily(
    r"(?<![a-z0-9])(?<!\b0 )(?<!no )(?<!zero )(?:fail(?:s|ed|ures?|ing)?|errors?|broken|"
    r"red|flaky|skipped|exceptions?|timed out|timeout)(?![a-z])|[✗✘❌⚠]|"
    r"(?<![\w-])(?:not|n't|never|but|except|although|though|however|yet|unless|until|till|"
    r"once|if|when|whenever|after|before|pending|provided|assuming|will|would|should|"
    r"must(?![ -]haves)|"
    r"may|might|could|can|need|needs|todo|some|most|partially|partly|only|"
    r"\d+[ \t]*(?:of|/)[ \t]*\d+)(?![\w-])|n't"
)
_ITEM_MARK = compile_lazily(r"[ \t>*_+-]*(?:\d{1,3}[.)][ \t]*)?[*_`]*")
_SENTENCE = compile_lazily(r"[^.;!?。；]+(?:[.;!?。；]+(?=[ \t]|$)|$)")
_TRAILING = " \t.!:：*_`"


def reports_pass(text: str) -> bool:
    """`text` (a lower-cased line, code names dropped) is an item whose every sentence
    reports a check that passed (module docstring)."""
    mark = _ITEM_MARK.match(text)
    body = text[mark.end() :] if mark is not None else text
    sentences = [s.strip().rstrip(_TRAILING) for s in _SENTENCE.findall(body)]
    sentences = [s for s in sentences if s]
    counts = [s for s in sentences if _COUNT.fullmatch(s) is not None]
    passes = [s for s in sentences if s not in counts]
    return bool(passes) and all(_one_pass(s) for s in passes)


def _one_pass(sentence: str) -> bool:
    for shape in (_CLAUSE, _ELIDED, _LABELLED, _ALL_MET):
        found = shape.fullmatch(sentence)
        if found is not None:
            return _DOUBTED.search(sentence) is None
    return False
