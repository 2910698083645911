"""A BMAD gate file read as the YAML it is, beside `bmad`'s line readers.

The line readers see the file's text; a person's YAML tools (and BMAD's own) see the mapping
YAML builds from it. Where the two differ, the text can hide what the mapping holds:

- an alias (`top_issues: *open`) names a list written under another key, and a quoted key
  (`"severity": "high"`, JSON flow style) is still the key `severity`: the gate's top issues
  are read from the loaded mapping too (`open_top_issue`), with the line reader's rule;
- a key given twice in one mapping (`security: {status: FAIL}` … `security: {status:
  PASS}`) is kept once by the loader, the last one, while the reader of the text sees both;
  a second YAML document (`---` and more keys) makes the loader refuse the file, so no field
  of the mapping is read at all (an active `waiver`, a FAIL NFR): such a file is not one
  mapping whose every field was read, and its PASS does not approve (`shape_problem`).
"""

from __future__ import annotations

from mergegate.verdicts._lines import Doc
from mergegate.verdicts._model import Severity
from mergegate.verdicts._templates._fields import MAX_YAML_CHARS

__all__ = ["blocking_severity", "open_top_issue", "shape_problem"]

# An issue's own `status:` / `resolution:` that closes it, as `bmad._CLOSED_ISSUE` reads it.
_CLOSED = ("resolved", "closed", "fixed", "done")


def shape_problem(doc: Doc) -> tuple[int, str] | None:
    """(line index, why) when the gate file is not one YAML document with each key once in
    its mappings: a second document, a key repeated in a mapping, or a file too long to
    load. None otherwise (text YAML does not read is left to the line readers)."""
    import yaml  # noqa: PLC0415 - lazy: only a gate file pays for the loader

    text = "\n".join(line.raw for line in doc.lines)
    if len(text) > MAX_YAML_CHARS:
        return 0, "the gate file is too long to read as YAML"
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.composer.ComposerError as error:
        mark = error.problem_mark
        return (
            mark.line if mark is not None else 0
        ), "the gate file holds more than one YAML document"
    except yaml.YAMLError:
        # Text YAML does not read (an odd indent real gate files have) is left to the line
        # readers, as before: they read its lines, not its mapping.
        return None
    return _repeated_key(node) if isinstance(node, yaml.MappingNode) else None


def _repeated_key(root: object) -> tuple[int, str] | None:
    """The first key given twice in one mapping of the node graph (each node visited once:
    an alias shares its anchor's node, so a chain of aliases costs no more than its text)."""
    import yaml  # noqa: PLC0415

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in keys:
                        why = f"the key '{key.value[:40]}' is given twice in one mapping"
                        return key.start_mark.line, why
                    keys.add(key.value)
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


def open_top_issue(doc: Doc, data: dict[object, object] | None) -> tuple[int, str] | None:
    """(line index, why) of the first item of the loaded `top_issues` list graded medium or
    above, or with a severity that is no grade, and not closed by its own `status:` or
    `resolution:` (BMAD's rule makes the gate CONCERNS or FAIL then); None otherwise. The
    list as YAML builds it: an alias resolved, quoted keys read as keys."""
    issues = data.get("top_issues") if data is not None else None
    if not isinstance(issues, list):
        return None
    index = next((i for i, line in enumerate(doc.lines) if "top_issues" in line.raw), 0)
    for item in issues:
        if not isinstance(item, dict) or "severity" not in item or _closed(item):
            continue
        found = blocking_severity(index, str(item["severity"]).strip().lower())
        if found is not None:
            return found
    return None


def blocking_severity(index: int, word: str) -> tuple[int, str] | None:
    """A top issue's severity word as the gate's reason to refuse, at line `index`: any grade
    above low blocks, and a word that is no grade is not read as a harmless one."""
    try:
        severity = Severity.from_word(word)
    except ValueError:
        return index, f"a top issue whose severity '{word[:20]}' is not low, medium or high"
    if severity is not Severity.MINOR:
        return index, f"the gate lists a {word}-severity top issue"
    return None


def _closed(item: dict[object, object]) -> bool:
    """Whether the issue's own status or resolution says it is done (`RESOLVED`, `fixed -
    added checks`)."""
    for key in ("status", "resolution"):
        value = item.get(key)
        if isinstance(value, str) and value.strip().lower().startswith(_CLOSED):
            return True
    return False
