"""YAML frontmatter: verdict keys and finding counts, whatever tool wrote it.

Verdict keys are read line by line (top-level `key: value` pairs, one level of nesting for
counts and lists), so that a comment stays beside its value: `status: passed  # pending` is
not a pass (an approving value with a comment after it is `malformed`, the comment named).
Finding counts are also read through `yaml.safe_load` (flow mappings `{critical: 1}`, quoted
counts `critical: "1"`), walking at most `_MAX_NODES` nodes so that aliases cannot blow up
the walk; a block YAML cannot read keeps the line-by-line counts.

GSD's reports (`status: clean | passed | …`, open `gaps:`, a frontmatter newer than the body)
are read by their recogniser, `_templates.gsd`; a status line it reads is not read here again.

Not the plans' reader (`mergegate.plans._frontmatter.PlanFrontmatter`), on purpose: that one
loads a plan's whole frontmatter as YAML with every value's line; this one reads untrusted
agent output for a handful of verdict keys, in linear time, without a YAML loader. The layers
agree: `verdicts` sits below `plans` and cannot import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mergegate.decisions import Decision
from mergegate.verdicts._answer import Answer, read_answer
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import COUNT_LABEL
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._fields import KEY_LINE
from mergegate.verdicts._text import has_lookalike, norm
from mergegate.verdicts._vocab import LabelKind, clean_value, hits, label_kind

__all__ = ["VerdictFrontmatter", "read_verdict_frontmatter"]

_NUMBER = compile_lazily(r"[ \t]*(\d{1,6})[ \t]*(?:#.*)?$")
_MAX_NODES = 2_000
_DIGITS = compile_lazily(r"[ \t]*\d{1,6}[ \t]*")


@dataclass(slots=True)
class VerdictFrontmatter:
    """What a report's frontmatter says about its verdict (not the whole frontmatter)."""

    sites: list[Site] = field(default_factory=list)
    counts: list[tuple[int, str, int]] = field(default_factory=list)
    """(line index, label, n) for 'critical: 2', 'blockers: 1' (also nested under a key)."""
    unread: list[tuple[int, str, str]] = field(default_factory=list)
    """(line index, label, value) of status-like keys whose value is no verdict ('status:
    partial'): no site, but the field is not understood (`_grammar.unread_fields`)."""
    tallied: int | None = None
    """The sum of a top-level `findings:` mapping whose every value is a count, whatever its
    grades are called (`{high: 0, medium: 0, low: 0, total: 0}`); None without one."""


def read_verdict_frontmatter(doc: Doc, *, status_is_verdict: bool = False) -> VerdictFrontmatter:
    """Sites, counts and facts of the frontmatter (empty when there is none).

    A key is a verdict field when its name is a verdict label and its value is in the verdict
    vocabulary. A status-like key (`status:`, `review:`, `result:`) whose value is outside the
    vocabulary (`status: current`, `review: IUM-5-…`) is the document's lifecycle or name, not
    its verdict: no site. `status_is_verdict` says the format's recogniser holds its status
    keys to be the verdict (a GSD report): there an unknown value is a malformed verdict. A
    `verdict:` or `decision:` key is a verdict field whatever it holds."""
    found = VerdictFrontmatter()
    for index in range(1, max(doc.frontmatter_end, 0)):
        raw = doc.lines[index].raw
        nested = raw[:1] in (" ", "\t")
        text = norm(raw).strip()
        if not text or text.startswith("#"):
            continue
        if nested:
            _nested(found, index, text)
            continue
        match = KEY_LINE.match(text)
        if match is None:
            continue
        _top_level(
            found, doc, index, match.group(1), match.group(2), status_is_verdict=status_is_verdict
        )
    _yaml_counts(found, doc)
    return found


def _yaml_counts(found: VerdictFrontmatter, doc: Doc) -> None:
    """Counts YAML reads that the line reader did not (flow mappings, quoted numbers)."""
    if doc.frontmatter_end < 1:
        return
    import yaml  # noqa: PLC0415 - lazy: only a document with frontmatter pays for the loader

    lines = [doc.lines[i].raw for i in range(1, doc.frontmatter_end)]
    try:
        data = yaml.safe_load("\n".join(lines))
    except yaml.YAMLError:
        return
    found.tallied = _tally(data)
    known = {(label.replace("_", " "), n) for _, label, n in found.counts}
    stack: list[object] = [data]
    budget = _MAX_NODES
    while stack and budget:
        budget -= 1
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            stack.append(value)
            label = str(key).strip().lower().replace("_", " ")
            number = _count_value(value)
            if number is None or not COUNT_LABEL.fullmatch(label) or (label, number) in known:
                continue
            known.add((label, number))
            line = next((i for i, raw in enumerate(lines, 1) if str(key) in raw), 1)
            found.counts.append((line, label, number))


def _tally(data: object) -> int | None:
    """The sum of `findings:` when it maps grades to counts, else None."""
    findings = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(findings, dict) or not findings:
        return None
    counts = [_count_value(v) for v in findings.values()]
    return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)


def _count_value(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    return None


def _top_level(
    found: VerdictFrontmatter,
    doc: Doc,
    index: int,
    key: str,
    raw_value: str,
    *,
    status_is_verdict: bool,
) -> None:
    value, _, comment = raw_value.partition(" #")
    value, comment = value.strip(), comment.strip(" #\t")
    number = _NUMBER.match(value)
    if number is not None and COUNT_LABEL.fullmatch(key.replace("_", " ")):
        found.counts.append((index, key, int(number.group(1))))
        return
    kind = label_kind(key.replace("_", " "))
    if kind is None or not value:
        return
    cleaned = clean_value(value.strip("'\""))
    answer = read_answer(cleaned, kind)
    label = key.replace("_", " ")
    if answer is None:
        words = hits(cleaned)
        if not any(ch.isalpha() for ch in cleaned) or (words and words[0].decision is None):
            return  # a workflow state ('completed', 'review-complete'): no verdict
        if kind is LabelKind.STATUS and not words and not status_is_verdict:
            found.unread.append((index, label, cleaned))
            return  # no verdict word: a lifecycle field ('status: current'), not a verdict
        # The report's own status field holds something outside any verdict vocabulary.
        answer = Answer(Decision.MALFORMED, cleaned[:40], "a status outside the verdict vocabulary")
    if answer.decision is Decision.APPROVE and comment:
        # The comment is visible to whoever reads the file: it may qualify the value.
        answer = Answer(Decision.MALFORMED, answer.phrase, f"a comment follows it: '# {comment}'")
    reason = f"frontmatter '{key}' says '{answer.phrase}'"
    if answer.why:
        reason += f" ({answer.why})"
    found.sites.append(
        Site(
            index=index,
            decision=answer.decision,
            dialect="frontmatter",
            reason=reason,
            kind=kind,
            lookalike=has_lookalike(doc.lines[index].raw),
            frontmatter=True,
            clean=answer.clean,
            label=label,
        )
    )


def _nested(found: VerdictFrontmatter, index: int, text: str) -> None:
    match = KEY_LINE.match(text.lstrip("- "))
    if match is None:
        return
    number = _NUMBER.match(match.group(2))
    label = match.group(1).replace("_", " ")
    if number is not None and COUNT_LABEL.fullmatch(label):
        found.counts.append((index, label, int(number.group(1))))
