"""GSD's anti-pattern scan: a table that grades what the verifier found by severity.

The verifier's template (`templates/verification-report.md` of get-shit-done) has a section
`### Anti-Patterns Found` holding one table:

    | File | Line | Pattern | Severity | Impact |
    | src/app.ts | 42 | `// TODO: wire the export` | ⚠️ Warning | … |

and grades each row 🛑 Blocker (prevents the goal), ⚠️ Warning (incomplete) or ℹ️ Info
(notable). The Severity cell is the row's field: the Pattern cell is the scan's inventory of
what it matched in the code (`// TODO`, `return null`, `placeholder`), so a blocking word
there ('TODO', 'stub') is what was found, not the verifier's judgement of the change.

So a table in that section is read by its columns: a row graded Info or Warning whose other
cells state no problem once the code they quote is set aside is accounted for (the verifier
weighed it and still passed the phase); a row graded Blocker is blocking content; a row with
any other grade, or a problem stated beside its grade in the verifier's own words, is left
to the generic reader. A table outside the section, or one without a Severity column, is not
read here. Linear in the lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates._checks import states_problem
from mergegate.verdicts._templates._human_checks import deciding_word
from mergegate.verdicts._text import CODE_SPAN, UNMARKED, norm
from mergegate.verdicts._vocab import clean_value

__all__ = ["AntiPatterns", "anti_pattern_rows"]

# The section's heading as the template names it ('### Anti-Patterns Found', '## 4. Anti-patterns').
_HEADING = compile_lazily(r"[\W\d_]*anti[- ]?patterns?\b.{0,40}")
# The template's grades (its emoji dropped): the ones a passing phase may hold, and its one
# that blocks the goal.
_WEIGHED = frozenset({"info", "warning"})
_BLOCKER = frozenset({"blocker"})
_GRADE_MARKS = "ℹ⚠🛑\ufe0f \t"
_CELL_SPLIT = compile_lazily(r"(?<!\\)\|")
_SEPARATOR = compile_lazily(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*")


@dataclass(frozen=True, slots=True)
class AntiPatterns:
    """What the report's anti-pattern tables say."""

    weighed: frozenset[int]
    """Rows graded Info or Warning that state no problem beside the grade, with their
    table's header and separator rows."""
    blocker: tuple[int, str] | None
    """(line index, why) of the first row graded Blocker."""


def anti_pattern_rows(doc: Doc) -> AntiPatterns:
    """The rows of the tables under the anti-pattern section's heading (module docstring)."""
    weighed: set[int] = set()
    blocker: tuple[int, str] | None = None
    level = 0  # the open anti-pattern section's heading level; 0 outside one
    header: list[int] = []  # the open table's header and separator rows
    column: int | None = None  # the open table's Severity column
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level:
            if not level or line.heading_level <= level:
                title = norm(line.heading_text).strip()
                level = line.heading_level if _HEADING.fullmatch(title) else 0
            header, column = [], None
            continue
        text = line.raw.strip()
        if not level or not line.shows or not text.startswith("|"):
            header, column = [], None
            continue
        cells = _cells(text)
        if not header:
            header = [index]
            column = next((i for i, c in enumerate(cells) if _plain(c) == "severity"), None)
            continue
        if column is None:
            continue
        if _SEPARATOR.fullmatch(text):
            header.append(index)
            continue
        grade = _plain(cells[column]).strip(_GRADE_MARKS) if column < len(cells) else ""
        if grade in _BLOCKER and blocker is None:
            blocker = index, f"line {line.number}: the anti-pattern scan grades a row Blocker"
        elif grade in _WEIGHED and not _problem_beside(cells, column):
            weighed.update((*header, index))
    return AntiPatterns(frozenset(weighed), blocker)


def _problem_beside(cells: list[str], column: int) -> bool:
    """A cell other than the grade states a problem or holds a verdict word that decides
    ('do not merge until …') in the verifier's own words: the code it quotes (a code span,
    what the scan matched) is set aside first."""
    for i, cell in enumerate(cells):
        if i == column:
            continue
        words = CODE_SPAN.sub(" ", norm(cell))
        if deciding_word(words) is not None or states_problem(clean_value(words)):
            return True
    return False


def _plain(cell: str) -> str:
    return " ".join(cell.translate(UNMARKED).lower().split())


def _cells(text: str) -> list[str]:
    return [c.strip() for c in _CELL_SPLIT.split(text.strip().strip("|"))]
