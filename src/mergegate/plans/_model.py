"""The one typed plan model every importer produces and `run`/`verify` consume.

plan → phases (ordered) → units (a GSD plan, a spectacular task, the single unit of a
superpowers plan) → tasks (ordered). Every element keeps its source file and line so that every
message can point at it. Frozen values with no behaviour beyond views; importers live in their
own modules. Unknown source fields are kept in `extra` rather than dropped or rejected.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AcceptanceCriterion",
    "Artifact",
    "Check",
    "KeyLink",
    "MustHaves",
    "Phase",
    "Plan",
    "PlanFormat",
    "SourceRef",
    "Task",
    "Unit",
    "Verify",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class PlanFormat(StrEnum):
    """Which family a plan was read from."""

    GSD = "gsd"
    SUPERPOWERS = "superpowers"
    SPECTACULAR = "spectacular"
    NATIVE = "native"


class SourceRef(_Frozen):
    """Where an element was read: a path relative to the imported PATH, and a 1-based line."""

    file: str
    line: int = Field(ge=1)


class Check(_Frozen):
    """A machine check mergegate runs itself: a shell command run in the unit's tree.

    The command is plan text (input, not authority): it runs under the supervisor with a time
    limit, bounded output and a scrubbed environment. `expect_exit` is the passing exit code.
    """

    run: str
    expect_exit: int = 0
    timeout_s: float | None = None
    source: SourceRef | None = None


class Verify(_Frozen):
    """How to prove a task worked: the plan's own text plus the runnable commands in it."""

    text: str = ""
    commands: tuple[Check, ...] = ()


class AcceptanceCriterion(_Frozen):
    """One acceptance criterion (PAUL's AC-N Given/When/Then, spectacular's, GSD's per task)."""

    id: str | None = None
    text: str
    source: SourceRef | None = None


class Artifact(_Frozen):
    """A file that must exist with real content (GSD `must_haves.artifacts`)."""

    path: str
    provides: str | None = None
    min_lines: int | None = None
    contains: str | None = None
    exports: tuple[str, ...] = ()
    source: SourceRef | None = None


class KeyLink(_Frozen):
    """A connection that must exist between two artifacts (GSD `must_haves.key_links`)."""

    from_: str = Field(alias="from")
    to: str
    via: str | None = None
    pattern: str | None = None
    source: SourceRef | None = None


class MustHaves(_Frozen):
    """GSD's goal-backward verification contract for a unit."""

    truths: tuple[str, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    key_links: tuple[KeyLink, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.truths or self.artifacts or self.key_links)


class Task(_Frozen):
    """One ordered step of a unit, done by the unit's implementer session.

    `type` is `auto` (an agent can do it alone) or a checkpoint kind such as
    `checkpoint:human-verify`, `checkpoint:human-action`, `checkpoint:decision`.
    """

    id: str
    name: str
    type: str = "auto"
    files: tuple[str, ...] = ()
    action: str = ""
    verify: Verify = Verify()
    done: str = ""
    checks: tuple[Check, ...] = ()
    acceptance_criteria: tuple[AcceptanceCriterion, ...] = ()
    source: SourceRef | None = None

    @property
    def is_checkpoint(self) -> bool:
        return self.type.startswith("checkpoint")


class Unit(_Frozen):
    """What one implementer works on in one worktree: a GSD plan, a spectacular task, …"""

    id: str
    name: str = ""
    wave: int | None = None
    depends_on: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    must_haves: MustHaves = MustHaves()
    acceptance_criteria: tuple[AcceptanceCriterion, ...] = ()
    boundaries: tuple[str, ...] = ()
    objective: str = ""
    autonomous: bool = True
    completed: bool = False
    """The source tool recorded it as done (e.g. GSD: its SUMMARY.md exists)."""
    tasks: tuple[Task, ...] = ()
    source: SourceRef | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class Phase(_Frozen):
    """An ordered stage of the plan; its units run in waves by `depends_on`."""

    id: str
    name: str = ""
    goal: str = ""
    success_criteria: tuple[AcceptanceCriterion, ...] = ()
    requirements: tuple[str, ...] = ()
    units: tuple[Unit, ...] = ()
    source: SourceRef | None = None


class Plan(_Frozen):
    """A whole plan: ordered phases, read from one of the known formats."""

    format: PlanFormat
    title: str = ""
    phases: tuple[Phase, ...] = ()
    source: SourceRef | None = None
