"""Phase, unit and task identifiers: what they may hold, how they compare, how they look.

Phase ids are strings (`01`, `14.1`, `999.1`, `Q2a.1`, `CV-RENDER`). Two spellings of one
number (`1`, `01`) are the same phase; ids with a non-numeric part are opaque and keep the
order the roadmap gives them.

Every id a plan gives is checked against one strict alphabet, `[A-Za-z0-9._-]`, starting with a
letter or digit (`id_problem`: the rule is `mergegate.ids.check_component`, the one every
composed id and branch name is held to; this module only says what is wrong). Ids become branch
names, folder names and the words a person types after `--phase`; an alphabet without look-
alikes is the only rule that makes an id that *looks* like another impossible by construction,
without a table of Unicode confusables to keep current (UTS #39's covers thousands of
characters, and mixed-script rules still let a whole-script Cyrillic `аос` pass for Latin).
Within the alphabet, ids that differ only in characters people misread (`0`/`O`, `1`/`l`/`I`,
`rn`/`m`, case, leading zeros) get one `skeleton`; two ids of one plan with the same skeleton
are an error. Ids the importers make from file names (a superpowers plan's stem) are brought
into the alphabet by `ascii_id`.
"""

from __future__ import annotations

import re
import unicodedata

from mergegate.ids import MAX_COMPONENT, IdError, check_component

__all__ = [
    "MAX_ID_LENGTH",
    "ascii_id",
    "id_problem",
    "normal_id",
    "numeric_parts",
    "skeleton",
    "slug",
    "sort_key",
]

MAX_ID_LENGTH = MAX_COMPONENT
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_NOT_ID = re.compile(r"[^A-Za-z0-9._-]+")
_DOTS = re.compile(r"\.{2,}")
_LEADING_ZEROS = re.compile(r"(?<![0-9])0+(?=[0-9])")
# Characters and pairs read as one another in common fonts, folded to one representative
# (after lower-casing): letters that pass for digits become the digits.
_LOOK_ALIKE = str.maketrans({"o": "0", "l": "1", "i": "1", "|": "1"})
_PAIRS = (("rn", "m"), ("vv", "w"))


def normal_id(value: str) -> str:
    """`01` → `1`, `14.01` → `14.1`, `Q2a.1` → `q2a.1`: the form two ids are compared in."""
    parts = value.strip().split(".")
    return ".".join(str(int(part)) if part.isdigit() else part.lower() for part in parts)


def numeric_parts(value: str) -> tuple[int, ...] | None:
    """The numbers of an all-numeric dotted id, None when any part is not a number."""
    parts = value.strip().split(".")
    if not all(part.isdigit() and len(part) <= 12 for part in parts):
        return None
    return tuple(int(part) for part in parts)


def sort_key(value: str, fallback: int) -> tuple[int, tuple[int, ...], int, str]:
    """Numeric ids in numeric order first, then opaque ids in `fallback` (roadmap) order."""
    numbers = numeric_parts(value)
    if numbers is not None:
        return (0, numbers, 0, value)
    return (1, (), fallback, value)


def slug(text: str) -> str:
    """Lower-case words joined by dashes: `Type & Safety Sweep` → `type-safety-sweep`."""
    return _NON_ALNUM.sub("-", text.lower()).strip("-")


def id_problem(value: str) -> str | None:
    """Why `value` cannot be an id (a short phrase), or None when it can: whether it can is
    `mergegate.ids.check_component`'s decision; this says which part of the rule it breaks."""
    try:
        check_component(value)
    except IdError:
        return _broken(value)
    return None


def _broken(value: str) -> str:
    """What is wrong with `value`, which `check_component` refused."""
    if not value:
        return "is empty"
    if len(value) > MAX_ID_LENGTH:
        return f"is longer than {MAX_ID_LENGTH} characters"
    bad = _NOT_ID.search(value)
    if bad is not None:
        return (
            f"holds {_describe(bad.group()[0])} at position {bad.start() + 1}; ids use only "
            "A-Z, a-z, 0-9, '.', '_' and '-'"
        )
    if not value[0].isalnum():  # only the first character is wrong: `.x`, `-x`, `_x`
        return f"starts with {value[0]!r}; ids start with a letter or a digit"
    return "cannot name a git branch ('..', or a trailing '.' or '.lock')"


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    code = f"U+{ord(char):04X}"
    return f"{code} {name}" if name else code


def skeleton(value: str) -> str:
    """What an id looks like to a reader: case, leading zeros and look-alikes folded.

    `01-0l`, `1-01` and `01-01` share one skeleton; so do `Auth` and `auth` (one folder on a
    case-insensitive file system) and `rn` and `m`.
    """
    folded = value.lower()
    for pair, single in _PAIRS:
        folded = folded.replace(pair, single)
    return _LEADING_ZEROS.sub("", folded.translate(_LOOK_ALIKE))


def ascii_id(text: str, fallback: str) -> str:
    """An id in the alphabet made from a file name: accents dropped (`café` → `cafe`), runs
    of other characters turned into one `-`; `fallback` when nothing is left."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = decomposed.encode("ascii", "ignore").decode("ascii")
    made = _DOTS.sub(".", _NOT_ID.sub("-", plain)).strip("-._")[:MAX_ID_LENGTH].rstrip("-._")
    return made if made and id_problem(made) is None else fallback
