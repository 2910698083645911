"""GSD's human checks: what a verifier hands to a person because it could not run it.

The verifier's template (`templates/verification-report.md` of get-shit-done) has a section
`## Human Verification Required` whose items each name a check and fill three fields:

    ### 1. {Test Name}
    **Test:** {What to do}
    **Expected:** {What should happen}
    **Why human:** {Why can't verify programmatically}

So the section's normal form is an instruction to a person and what should happen then: a
modal of obligation there ('The dialog should close', 'Dates must show in local time') is the
field's value, not a condition on the report's verdict, and an instruction ('Open the map
builder') is the check itself. Under a passing status the labelling rule reads them as notes
for a person (`gsd`); `human_needed` is the status that makes them conditions.

A field line of the section (`**Test:** …`, `- **Expected:** …`, `Why human: …`) is the
template's own when it holds no verdict word that decides (`Do not merge`, `FAIL`), no
blocking content, no problem it states, and no clause a statement may not hold — except a
modal of obligation in the field's shape (`_expected_obligation`) in a field that places
nothing now, still or first and ties nothing to the merge (`_plain`). So a wait, a wish, a
request, work on the change ('should be fixed'), a condition on a judgement or words about
the verdict or the merge still count. Any other line (prose, a list item without a field)
stays with the generic readers, which read it as before. Linear in the lines.
"""

from __future__ import annotations

from mergegate.verdicts._blocking import text_blocking
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import merge_tied
from mergegate.verdicts._statement import LABEL, clause_problem
from mergegate.verdicts._templates._checks import states_problem
from mergegate.verdicts._text import CODE_SPAN, THEMATIC_BREAK, norm
from mergegate.verdicts._vocab import clean_value, hits, is_clause_end

__all__ = ["check_problem", "deciding_word", "human_check_lines"]

# The section's heading as the template and its translations name it.
_HUMAN_HEADING = compile_lazily(
    r"[\W\d_]*(?:human|manual) verification(?: (?:required|needed))?[\W_]*|"
    r"[\W\d_]*verificaci[oó]n humana(?: requerida)?[\W_]*"
)
_NUMBERED = compile_lazily(r"[ \t*_]*\d{1,2}[.)][ \t]")
# A quotation is what the check expects to see ('shows "Leave site?"'), not the verifier's words.
_QUOTED = compile_lazily(r'"[^"\n]{0,400}"|“[^”\n]{0,400}”')
_SENTENCES = compile_lazily(r"(?<=[.!?;])\s+")
# A field of a check: '**Test:** …', '- **Expected:** …', 'Why human: …'.
_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)?[*_]{0,2}(test|expected|why human)[*_]{0,2}"
    r"[ \t]*:[*_]{0,2}[ \t]*"
)
# Closed classes: negators; adverbs that place something now, still or first.
_NEGATOR = compile_lazily(
    r"(?<![a-z])(?:no|not|never|none|nothing|nobody|neither|nor|without|cannot)(?![a-z])|n't"
)
_ASPECT = compile_lazily(
    r"(?<![a-z])(?:still|yet|currently|anymore|first|beforehand|right now|at present|"
    r"at the moment|for now|so far)(?![a-z])"
)
# A modal of obligation, the word before it (its subject's last word), and its verb: 'be'
# and a participle (passive) or a bare verb.
_OBLIGATION_SHAPE = compile_lazily(
    r"([a-z]+)?[ \t]*(?<![a-z])(?:must|should|shall|ought to|needs? to|ha(?:s|ve) to)[ \t]+"
    r"(be[ \t]+)?([a-z]+)"
)
_PERSONS = frozenset(
    {
        "i", "we", "you", "he", "she", "they", "someone", "somebody", "anyone", "anybody",
        "everyone", "everybody", "one",
    }
)  # fmt: skip
# Verbs of checking: what a person is asked to do with the change in a 'why human' field.
_VERIFYING = compile_lazily(
    r"(?:observ|check|verifi|confirm|test|inspect|exercis|validat|judg|assess|evaluat|"
    r"review|examin)ed|seen|done manually|run"
)


def human_check_lines(doc: Doc) -> frozenset[int]:
    """The field lines of the body's human-check sections (up to the next heading at the
    section's level or above, or a thematic break) that read as checks (`_own_field`), with
    the lines a field's value wraps onto. A check's own name — a deeper heading, or a
    numbered one at the section's level ('### 1. Spreadsheet import') — goes on with the
    section and stays with the generic readers, like every line that is no field."""
    found: set[int] = set()
    level = 0  # the open human-check section's heading level; 0 outside one
    field: list[int] = []  # the open field's lines: its own, then those its value wraps onto
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        said = norm(line.raw)
        wraps = (
            bool(field)
            and len(field) < _MOST_WRAPPED
            and _wraps(line, said, doc.lines[index - 1].raw)
        )
        if not wraps:
            found.update(_own_field(doc, field))
            field = []
        if line.heading_level:
            title = norm(line.heading_text).lower()
            if level and line.heading_level == level and _NUMBERED.match(title):
                continue  # a check named at the section's own level ('### 1. Export')
            if not level or line.heading_level <= level:
                level = line.heading_level if _HUMAN_HEADING.fullmatch(title) else 0
        elif THEMATIC_BREAK.fullmatch(line.raw):
            level = 0
        elif wraps or (level and line.live and _FIELD.match(said)):
            field.append(index)
        elif level and line.live and not line.blank and _own_prose(said):
            found.add(index)
    found.update(_own_field(doc, field))
    return frozenset(found)


# A field's value wraps onto a few lines at most (the read stays linear).
_MOST_WRAPPED = 8
_SENTENCE_ENDS = ".!?。！？"
_NEW_ITEM = compile_lazily(r"[ \t]*(?:[-*+>|]|\d{1,3}[.)])[ \t]")


def _wraps(line: Line, said: str, above: str) -> bool:
    """The line goes on with the sentence of the field above it: the line above ends with
    no sentence end, and this one is shown, not blank, and no heading, list item, quote,
    table row or label of its own ('Blocking: …')."""
    if not line.live or line.blank or line.heading_level:
        return False
    if above.rstrip(" \t*_`")[-1:] in _SENTENCE_ENDS:
        return False
    return _NEW_ITEM.match(said) is None and LABEL.match(said) is None


def _own_prose(said: str) -> bool:
    """A line of the section that is no field ('The following should be confirmed by
    hand:'), read alone: the template's own when it reads as a check (`check_problem`
    with no field) and holds no verdict word that decides and no blocking content."""
    if deciding_word(said) is not None or text_blocking(said) is not None:
        return False
    return check_problem(said, field=None) is None


def _own_field(doc: Doc, lines: list[int]) -> list[int]:
    """`lines` (a field and the lines its value wraps onto) when the template accounts for
    them: the value reads as a check and the field holds no verdict word that decides (the
    readers it is hidden from would have read that as a verdict); else none of them."""
    if not lines:
        return []
    said = " ".join(norm(doc.lines[i].raw).strip() for i in lines)
    field = _FIELD.match(said)
    if field is None or deciding_word(said) is not None:
        return []
    # each line read alone too: what its own shape says ('Blocking: …' opening a line)
    if any(text_blocking(norm(doc.lines[i].raw)) is not None for i in lines):
        return []
    return lines if check_problem(said[field.end() :], field=field.group(1)) is None else []


def check_problem(text: str, *, field: str | None = "expected") -> str | None:
    """Why the value of a human check's `field` (`test`, `expected`, `why human`; a
    frontmatter check is read as an `expected`) says more than a check, or None when it
    reads as one: what a statement may not say (`clause_problem`), except a modal of
    obligation where the field's own form has one (`_expected_obligation`)."""
    said = norm(text)
    blocking = text_blocking(said)
    if blocking is not None:
        return blocking
    if states_problem(said):
        return "states a problem"
    value = _QUOTED.sub(" QUOTE ", CODE_SPAN.sub(" CODE ", said))
    label = LABEL.match(value)
    value = value[label.end() :] if label is not None else value
    relaxed = _plain(value)
    for sentence in _SENTENCES.split(value):
        if not sentence.strip():
            continue
        obligations = not (relaxed and _expected_obligation(sentence, field))
        # a field's value may open with the instruction it is ('Open the export'); prose
        # is read as the generic readers read it, but for its obligations
        problem = clause_problem(
            sentence, narrative=True, openings=field is None, obligations=obligations
        )
        if problem is not None:
            return problem
    return None


def _plain(value: str) -> bool:
    """The field tells what is to be seen and nothing else: no negator, no word placing
    something now or still to come (`_ASPECT`), nothing tied to the merge. Only then may an
    obligation in it be the field's form ('should show in UTC' beside 'right now they show
    local time' is a defect told as an expectation)."""
    return not (_NEGATOR.search(value) or _ASPECT.search(value) or merge_tied(value))


def _expected_obligation(sentence: str, field: str | None) -> bool:
    """Every modal of obligation in the sentence has the shape a check takes: a passive with
    a verb of checking ('must be observed in a real browser', 'should be confirmed by
    hand'), anywhere in the section; in a `test` or `expected` field, also a behaviour
    ('Columns should line up', 'The download must start') — a modal and its bare verb, not
    with a person as its subject ('Someone should fix …'). A passive with another verb is
    work on the change ('should be fixed', 'needs to be rolled back'), and so is any other
    obligation a `why human` field or a line of prose tells."""
    for match in _OBLIGATION_SHAPE.finditer(sentence):
        subject, passive, verb = match.group(1), match.group(2), match.group(3)
        if passive:
            if not _VERIFYING.fullmatch(verb):
                return False
        elif field not in ("test", "expected") or subject in _PERSONS:
            return False
    return True


def deciding_word(text: str) -> str | None:
    """A verdict word that decides where it stands: one that is no ordinary word, or an
    ordinary one ('pass', 'no') that ends its clause. A line holding one is a verdict's to
    read, never a check's."""
    value = clean_value(text.lower())
    for hit in hits(value):
        if hit.decision is not None and (not hit.ambiguous or is_clause_end(value, hit.end)):
            return hit.phrase
    return None
