"""What a reviewer is shown: the diff, the affected files (diff only past a size limit), the
spec, the still-open findings. Pure functions over values the loop fetched from git."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mergegate.review.reports import fence
from mergegate.verdicts import Finding

__all__ = [
    "CONVENTION_FILES",
    "render_changes",
    "render_conventions",
    "render_files",
    "render_findings",
]

CONVENTION_FILES = (
    "AGENTS.md",
    "CLAUDE.md",
    "CONTRIBUTING.md",
    ".github/CONTRIBUTING.md",
    "docs/CONTRIBUTING.md",
    "STYLE.md",
    "docs/STYLE.md",
    ".editorconfig",
)
"""Where projects write their own conventions down, read from the review's base revision
(the change under review cannot rewrite the rules it is checked against)."""


def render_changes(
    diff: str, files: Mapping[str, str | None], *, size_limit: int
) -> tuple[str, bool]:
    """The diff plus the full affected files, or the diff alone when that exceeds `size_limit`.

    Returns the text and whether the affected files were left out.
    """
    diff_block = "### Diff\n\n" + fence(diff or "(empty diff)\n", "diff")
    file_blocks = [
        f"### {path}\n\n" + (fence(text, "") if text is not None else "(deleted)\n")
        for path, text in files.items()
    ]
    full = diff_block + "\n### Affected files (after the change)\n\n" + "\n".join(file_blocks)
    if len(full.encode("utf-8")) <= size_limit:
        return full, False
    note = (
        f"\n(The affected files are left out: the change is larger than {size_limit} bytes. "
        "Review the diff.)\n"
    )
    return diff_block + note, True


def render_files(files: Mapping[str, str | None], *, size_limit: int) -> str:
    """The current content of `files` for an implementer, or only their paths past `size_limit`.

    Agents without tools (openai, local) answer with whole files: without the content in the
    prompt they would rewrite a file blind and drop what they cannot see.
    """
    if not files:
        return "None."
    blocks = [
        f"### {path}\n\n" + (fence(text, "") if text is not None else "(deleted)\n")
        for path, text in files.items()
    ]
    full = "\n".join(blocks)
    if len(full.encode("utf-8")) <= size_limit:
        return full
    paths = "\n".join(f"- {path}" for path in files)
    return f"(Larger than {size_limit} bytes, so not shown; read them in the work tree.)\n{paths}"


def render_conventions(files: Mapping[str, str | None], *, size_limit: int) -> str:
    """The project's convention files for the quality reviewer, in `CONVENTION_FILES` order,
    within `size_limit` bytes in all (a file past the budget is cut at a line and says so);
    without any, an instruction to infer the patterns from the neighbouring code."""
    blocks: list[str] = []
    left = size_limit
    for path, text in files.items():
        if text is None or not text.strip() or left <= 0:
            continue
        shown = _cut(text, left)
        note = "" if shown == text else f"(cut: the first {len(shown.encode())} bytes)\n"
        blocks.append(f"### {path}\n\n{note}" + fence(shown, ""))
        left -= len(shown.encode("utf-8"))
    if not blocks:
        return (
            "None written down (no AGENTS.md, CONTRIBUTING.md, STYLE.md, ...): infer the "
            "project's patterns from the code around the change."
        )
    return "\n".join(blocks)


def _cut(text: str, limit: int) -> str:
    """`text`, or its longest prefix of whole lines within `limit` UTF-8 bytes."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    head = data[:limit].decode("utf-8", "ignore")
    return head[: head.rfind("\n") + 1] if "\n" in head else head


def render_findings(findings: Sequence[Finding], *, empty: str = "None.") -> str:
    """Findings as a list an agent can act on, each with its stable id."""
    if not findings:
        return empty
    lines = []
    for f in findings:
        where = f" — {f.file}:{f.line}" if f.file and f.line else (f" — {f.file}" if f.file else "")
        detail = f"\n  {f.detail.strip()}" if f.detail.strip() else ""
        if f.suggestion:
            detail += f"\n  Suggested fix: {f.suggestion.strip()}"
        if f.requirement:
            detail += f"\n  Requirement: {f.requirement.strip()}"
        lines.append(f"- [{f.id}] ({f.severity.value}) {f.title}{where}{detail}")
    return "\n".join(lines)
