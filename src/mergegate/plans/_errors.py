"""The plan importers' one error and their collected warnings.

`PlanError` is a `mergegate.errors.UsageError` (exit 2): the input is unknown or broken. Its
message always starts with `file:line:` so a person can go straight to the place. Everything
short of that (a missing optional field, a contradiction the importer resolved in a documented
way) is a `PlanIssue` warning collected on the way and returned with the plan. One thing in
between: a GSD plan file whose frontmatter nothing can read (not YAML, not even GSD's lenient
subset) is imported without it and recorded as an *error* issue — a 70-plan tree stays
readable because of one model-written typo, and `plan check`/`run` still refuse it.
"""

from __future__ import annotations

from mergegate.errors import UsageError
from mergegate.plans._model import PlanIssue, Severity, SourceRef

__all__ = ["Notes", "PlanError"]


class PlanError(UsageError):
    """A plan that cannot be read: unknown format, broken syntax, too large. Exit 2."""

    def __init__(self, message: str, *, file: str, line: int = 1) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.reason = message


class Notes:
    """Warnings collected while importing one plan, in the order they were found."""

    def __init__(self) -> None:
        self._issues: list[PlanIssue] = []

    def warn(self, code: str, message: str, source: SourceRef | None) -> None:
        self._issues.append(
            PlanIssue(severity=Severity.WARNING, code=code, message=message, source=source)
        )

    def error(self, code: str, message: str, source: SourceRef | None) -> None:
        """A part of a plan that could not be read; the rest is still imported."""
        self._issues.append(
            PlanIssue(severity=Severity.ERROR, code=code, message=message, source=source)
        )

    @property
    def issues(self) -> tuple[PlanIssue, ...]:
        return tuple(self._issues)
