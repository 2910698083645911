"""The one typed plan model every importer produces and `run`/`verify` consume.

plan → phases (ordered) → units (a GSD plan, a spectacular task, the single unit of a
superpowers plan) → tasks (ordered). Every element keeps its source file and line so that every
message can point at it. Frozen values with no behaviour beyond views; importers live in their
own modules. Unknown source fields are kept in `extra` (JSON values only) rather than dropped or
rejected.

What the model never records: an "already done" state read from checkbox ticks. A plan whose
boxes are all ticked says nothing about the code; only `Unit.completed` (the source tool's own
record of execution, e.g. GSD's SUMMARY.md) says a unit ran, and even that is no proof its
acceptance criteria hold.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, JsonValue

__all__ = [
    "AcceptanceCriterion",
    "Artifact",
    "Check",
    "FileChange",
    "ImportResult",
    "KeyLink",
    "MustHaves",
    "Phase",
    "Plan",
    "PlanFormat",
    "PlanIssue",
    "Severity",
    "SourceRef",
    "Step",
    "Task",
    "Unit",
    "Verify",
]


def _id_text(value: Any) -> Any:
    # Hand-written YAML turns `id: 3` into an int; an id is always text (`01` and `1` differ).
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


Id = Annotated[str, BeforeValidator(_id_text)]
"""An identifier: always text. Numbers given where an id belongs are turned into their text."""


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

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class Check(_Frozen):
    """A machine check mergegate runs itself: a shell command run in the unit's tree.

    The command is plan text (input, not authority): it runs under the supervisor with a time
    limit, bounded output and a scrubbed environment. `expect_exit` is the passing exit code.
    `run` may hold several lines (a script). `expect` is the plan's own words for the expected
    outcome (superpowers' `Expected:` line), kept verbatim; `expect_failure` marks a command the
    plan expects to FAIL at the step where it appears (a test-first "red" step) — it belongs to
    its step, never to the acceptance checks in `Verify.commands`.
    """

    run: str
    expect_exit: int = 0
    timeout_s: float | None = None
    expect: str = ""
    expect_failure: bool = False
    source: SourceRef | None = None


class Verify(_Frozen):
    """How to prove a task worked: the plan's own text plus the runnable commands in it.

    Only commands the plan marks as runnable become `commands` (GSD `<automated>`, superpowers
    `Run:` lines paired with an `Expected:` line, spectacular `**Quality Gates**` fences); free
    prose that mentions a command stays text.
    """

    text: str = ""
    commands: tuple[Check, ...] = ()


class AcceptanceCriterion(_Frozen):
    """One acceptance criterion (PAUL's AC-N Given/When/Then, spectacular's, GSD's per task)."""

    id: Id | None = None
    text: str
    source: SourceRef | None = None


class Artifact(_Frozen):
    """A file that must exist with real content (GSD `must_haves.artifacts`).

    `path` may name a directory and `contains` may be prose rather than a pattern: neither is
    assumed to be a regex.
    """

    path: str
    provides: str | None = None
    min_lines: int | None = None
    contains: str | None = None
    exports: tuple[str, ...] = ()
    source: SourceRef | None = None


class KeyLink(_Frozen):
    """A connection that must exist between two artifacts (GSD `must_haves.key_links`).

    `pattern` is a regex to look for when given; `from`/`to` are usually paths but can be prose.
    """

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


class FileChange(_Frozen):
    """One entry of a task's file list with the plan's verb kept (superpowers `- Modify: a.py`).

    `action` is the verb in lower case (`create`, `modify`, `test`, `move`, `delete`, ...) or
    `""` when the plan gives none; `lines` is a line locator stripped from the path (`:12-40`);
    `to` is the destination of a move.
    """

    path: str
    action: str = ""
    lines: str | None = None
    to: str | None = None


class Step(_Frozen):
    """A numbered step inside a task (superpowers `**Step N: ...**`), with its own commands.

    `checks` holds every `Run:`/`Expected:` pair of the step, red steps included; whether a box
    in front of the step is ticked is not recorded (a tick is not evidence of anything).
    """

    title: str
    checks: tuple[Check, ...] = ()
    source: SourceRef | None = None


class Task(_Frozen):
    """One ordered step of a unit, done by the unit's implementer session.

    `type` is `auto` (an agent can do it alone) or a checkpoint kind such as
    `checkpoint:human-verify`, `checkpoint:human-action`, `checkpoint:decision`.
    `checks` are mergegate-native machine checks (written in the native format); imported
    plans put their runnable commands in `verify.commands`.
    """

    id: Id
    name: str
    type: str = "auto"
    files: tuple[str, ...] = ()
    file_changes: tuple[FileChange, ...] = ()
    read_first: tuple[str, ...] = ()
    action: str = ""
    behavior: str = ""
    steps: tuple[Step, ...] = ()
    verify: Verify = Verify()
    done: str = ""
    checks: tuple[Check, ...] = ()
    acceptance_criteria: tuple[AcceptanceCriterion, ...] = ()
    source: SourceRef | None = None
    extra: dict[str, JsonValue] = Field(default_factory=dict)

    @property
    def is_checkpoint(self) -> bool:
        return self.type.startswith("checkpoint")


class Unit(_Frozen):
    """What one implementer works on in one worktree: a GSD plan, a spectacular task, …

    `wave` is the wave the source declares (None when it declares none); the order to run
    units in is computed from `depends_on` by `mergegate.plans.unit_waves`, which never runs a
    unit earlier than its declared wave. `files` is what the unit says it may touch (GSD
    `files_modified`, or the union of its tasks' files where the format has no such list).
    """

    id: Id
    name: str = ""
    wave: int | None = None
    depends_on: tuple[Id, ...] = ()
    files: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    must_haves: MustHaves = MustHaves()
    acceptance_criteria: tuple[AcceptanceCriterion, ...] = ()
    success_criteria: tuple[AcceptanceCriterion, ...] = ()
    verification: Verify = Verify()
    boundaries: tuple[str, ...] = ()
    objective: str = ""
    autonomous: bool = True
    completed: bool = False
    """The source tool recorded it as done (e.g. GSD: its SUMMARY.md exists)."""
    tasks: tuple[Task, ...] = ()
    source: SourceRef | None = None
    extra: dict[str, JsonValue] = Field(default_factory=dict)


class Phase(_Frozen):
    """An ordered stage of the plan; its units run in waves by `depends_on`.

    `directory` is the phase's directory relative to the imported PATH where the format has
    one (GSD), so results can be written back beside the plans. `verification_status` is the
    status a previous verification recorded (GSD `VERIFICATION.md`: `passed`, `gaps_found`,
    `human_needed`, or `unknown` when the report has none).
    """

    id: Id
    name: str = ""
    goal: str = ""
    success_criteria: tuple[AcceptanceCriterion, ...] = ()
    requirements: tuple[str, ...] = ()
    units: tuple[Unit, ...] = ()
    directory: str | None = None
    verification_status: str | None = None
    source: SourceRef | None = None
    extra: dict[str, JsonValue] = Field(default_factory=dict)


class Plan(_Frozen):
    """A whole plan: ordered phases, read from one of the known formats."""

    format: PlanFormat
    title: str = ""
    phases: tuple[Phase, ...] = ()
    source: SourceRef | None = None
    extra: dict[str, JsonValue] = Field(default_factory=dict)

    def units(self) -> Iterator[tuple[Phase, Unit]]:
        """Every unit with its phase, in plan order."""
        for phase in self.phases:
            for unit in phase.units:
                yield phase, unit

    def tasks(self) -> Iterator[tuple[Unit, Task]]:
        """Every task with its unit, in plan order."""
        for _, unit in self.units():
            for task in unit.tasks:
                yield unit, task


class Severity(StrEnum):
    """How much a finding about a plan matters: errors stop `plan check` (exit 2)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class PlanIssue(_Frozen):
    """Something an importer or `plan check` noticed, with the place it concerns.

    `code` is a stable kebab-case name (`missing-name`, `dependency-cycle`, ...) for tools.
    """

    severity: Severity
    code: str
    message: str
    source: SourceRef | None = None

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.severity.value}: {self.message}"


class ImportResult(_Frozen):
    """A plan as read, plus every issue the importer collected on the way.

    `warnings` holds warnings and, for parts that could not be read at all (a GSD plan's
    unreadable frontmatter), errors: a result with `errors` must not be run.
    """

    plan: Plan
    warnings: tuple[PlanIssue, ...] = ()

    @property
    def errors(self) -> tuple[PlanIssue, ...]:
        return tuple(issue for issue in self.warnings if issue.severity == Severity.ERROR)
