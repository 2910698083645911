"""Every id and name mergegate composes, in one place (STYLE rule 22: compose an id in one place).

Each has one function or type that writes it and one that reads it back (`parse`, raising
`IdError`, a `ValueError`); nothing else joins ids with `/` or splits them
(`tests/test_ids_one_home.py` greps for it). Every format here is persisted (folder names,
database rows, DBOS workflow ids, git branch names, commit trailers) or typed by a person
(`AnswerKey`, in `resume --answer`): changing a byte breaks `resume` of the runs already
recorded, or the commands people wrote down.

* run: `YYYYmmdd-HHMMSS-xxxx` (`new_run_id`), sorting by start time, a git branch component;
  check run: 12 hex digits (`new_check_run_id`); a phase's verification: `<run>-<phase>-gNN`;
* DBOS workflow (`WorkflowId`): `<run>/g<N>`, `<run>/g<N>/<phase or unit>`,
  `<run>/<unit>/<task>[/<again>]`, `<run>/fleet/g<N>`;
* event (`EventId`): `<run>/<key>`; an implementer's handoff event (`HandoffEventId`):
  `read:<task workflow id>/<folder>/<type>/<attempt>`, `help:<task workflow id>/<n>`;
* the task a person answers (`AnswerKey`, `resume --answer KEY=…`): `<unit>/<task>`, or
  `<task>` alone when one unit has it;
* an agent attempt's folder in its run's folder (`AttemptPath`, an attempt row's `attempt`):
  `<phase>/<unit>/<task>/…`;
* branches: `mergegate/<run>` (`integration_branch`), `mergegate-unit/<run>/<unit>` and
  `mergegate-wip/<run>/<unit>` (`UnitBranch`), `mergegate-merge/<run>/<name>` (a prepared
  merge waiting to be published across hosts, `carrier_branch`);
* commit trailers (`TrailerLine`): `Mergegate-Task: <task workflow id>`, `Mergegate-Fix:
  <task>/<round>[/rNN]`, `Mergegate-Unit: <run>/<unit>`, `Mergegate-Summary: <run>/<unit>`,
  `Mergegate-Verification: <run>/<phase>/gNN`;
* DBOS names: applications `mergegate`, `mergegate-fleet`, `mergegate-run-<run>`; queues
  `mergegate-units`, `mergegate-runs`, `mergegate-units-<run>`; application version
  `mergegate-<version>-e<schema>`, `…-run-<run>` for a local run on a shared database.

A component (a run, phase, unit or task id) is `[A-Za-z0-9][A-Za-z0-9._-]*`, without `..` and
not ending in `.` or `.lock`: it can hold no `/`, no whitespace, and makes a name git accepts
(`check_component`). Plan ids are checked against the same alphabet when the plan is loaded
(`mergegate.plans`), so an id from an untrusted plan fails there, with exit 2, before any of
these names is made from it.

Layer L0: the standard library only.
"""

from __future__ import annotations

import re
import secrets
import time
import uuid
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "APP",
    "CARRIER_PREFIX",
    "FLEET_APP",
    "INTEGRATION_PREFIX",
    "MAX_COMPONENT",
    "QUEUE",
    "RUN_QUEUE",
    "UNIT_PREFIX",
    "WIP_PREFIX",
    "AnswerKey",
    "AttemptPath",
    "EventId",
    "EventKey",
    "HandoffEventId",
    "HandoffEventKind",
    "IdError",
    "Trailer",
    "TrailerLine",
    "UnitBranch",
    "WorkflowId",
    "app_name_for_run",
    "app_version",
    "carrier_branch",
    "check_component",
    "event_id",
    "integration_branch",
    "is_component",
    "new_check_run_id",
    "new_run_id",
    "parse_app_name_for_run",
    "parse_app_version",
    "parse_carrier_branch",
    "parse_check_run_id",
    "parse_integration_branch",
    "parse_phase_check_run_id",
    "parse_queue_for_run",
    "parse_run_app_version",
    "parse_run_id",
    "phase_check_run_id",
    "queue_for_run",
    "run_app_version",
]


class IdError(ValueError):
    """An id or name that does not read as its format: the message says what and why."""


_COMPONENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_RUN_ID = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{4}")
_CHECK_RUN_ID = re.compile(r"[0-9a-f]{12}")
_GENERATION = re.compile(r"g([0-9]{1,9})")
MAX_COMPONENT = 128


def check_component(value: str, what: str = "id") -> str:
    """`value` when it can be one part of a composed id or branch name; else `IdError`."""
    if not value:
        raise IdError(f"the {what} is empty")
    if len(value) > MAX_COMPONENT:
        raise IdError(f"the {what} {value[:40]!r}… is longer than {MAX_COMPONENT} characters")
    if _COMPONENT.fullmatch(value) is None:
        raise IdError(
            f"the {what} {value!r} holds a character outside A-Z, a-z, 0-9, '.', '_', '-' "
            "(or does not start with a letter or a digit)"
        )
    if ".." in value or value.endswith((".", ".lock")):
        raise IdError(f"the {what} {value!r} cannot name a git branch ('..', '.' or '.lock')")
    return value


def is_component(value: str) -> bool:
    """True when `check_component` accepts `value`: a name that may be a run's (a folder under
    the state directory, a row's key), before anything is looked up by it."""
    try:
        check_component(value)
    except IdError:
        return False
    return True


# ---------------------------------------------------------------- runs and check runs


def new_run_id() -> str:
    """A run id that sorts by start time and is a valid git branch component."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def parse_run_id(text: str) -> str:
    """`text` when it is a run id `new_run_id` makes (`YYYYmmdd-HHMMSS-xxxx`); else `IdError`."""
    if _RUN_ID.fullmatch(text) is None:
        raise IdError(f"{text[:80]!r} is not a run id (YYYYmmdd-HHMMSS-xxxx)")
    return text


def new_check_run_id() -> str:
    """The id of one review or verification run: 12 random hex digits."""
    return uuid.uuid4().hex[:12]


def parse_check_run_id(text: str) -> str:
    """`text` when it is a check-run id `new_check_run_id` makes; else `IdError`."""
    if _CHECK_RUN_ID.fullmatch(text) is None:
        raise IdError(f"{text[:80]!r} is not a check-run id (12 hex digits)")
    return text


def phase_check_run_id(run_id: str, phase_id: str, generation: int) -> str:
    """The check-run id of a phase's verification in a run: `<run>-<phase>-gNN`."""
    return f"{run_id}-{phase_id}-g{generation:02d}"


_PHASE_CHECK_RUN = re.compile(r"([0-9]{8}-[0-9]{6}-[0-9a-f]{4})-(.+)-g([0-9]{2,9})")


def parse_phase_check_run_id(text: str) -> tuple[str, str, int]:
    """The (run, phase, generation) `phase_check_run_id` made `text` from; else `IdError`."""
    found = _PHASE_CHECK_RUN.fullmatch(text)
    if found is None:
        raise IdError(f"{text[:80]!r} is not a phase's check-run id (<run>-<phase>-gNN)")
    return found.group(1), check_component(found.group(2), "phase id"), int(found.group(3))


# ---------------------------------------------------------------- DBOS workflow ids


@dataclass(frozen=True)
class WorkflowId:
    """A DBOS workflow id: the run id, then the parts below it, joined by `/`.

    The shapes (each made by one constructor below): `<run>/g<N>` a generation's run
    workflow, `<run>/g<N>/<phase or unit>` its phases and units, `<run>/<unit>/<task>` a
    task (`/<again>` when a person asked it to run again), `<run>/fleet/g<N>` a queued run.
    """

    run_id: str
    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        check_component(self.run_id, "run id")
        if not 1 <= len(self.parts) <= 3:
            raise IdError(
                f"a workflow id of run {self.run_id!r} has 1 to 3 parts below it, "
                f"not {len(self.parts)}"
            )
        for part in self.parts:
            check_component(part, "workflow id part")
        if len(self.parts) == 1 and _GENERATION.fullmatch(self.parts[0]) is None:
            raise IdError(f"{self.parts[0]!r} is no generation (g<N>) of run {self.run_id!r}")

    def format(self) -> str:
        return "/".join((self.run_id, *self.parts))

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str) -> WorkflowId:
        """The workflow id `text` spells; `IdError` for an empty part, `..`, whitespace…"""
        if len(text) > 8 * MAX_COMPONENT:
            raise IdError(f"the workflow id {text[:40]!r}… is too long")
        run_id, *parts = text.split("/")
        return cls(run_id, tuple(parts))

    @classmethod
    def run(cls, run_id: str, generation: int) -> WorkflowId:
        return cls(run_id, (f"g{generation}",))

    @classmethod
    def generation_child(cls, run_id: str, generation: int, child: str) -> WorkflowId:
        """A phase's or a unit's workflow in one generation (`<run>/g<N>/<child>`)."""
        return cls(run_id, (f"g{generation}", child))

    @classmethod
    def task(cls, run_id: str, unit_id: str, task_id: str, again: str = "") -> WorkflowId:
        """A task's workflow; also its commit key (`Mergegate-Task:`)."""
        return cls(run_id, (unit_id, task_id, *((again,) if again else ())))

    @classmethod
    def fleet_run(cls, run_id: str, generation: int) -> WorkflowId:
        return cls(run_id, ("fleet", f"g{generation}"))

    @property
    def generation(self) -> int | None:
        """The generation the id names (`<run>/g<N>[/…]`, `<run>/fleet/g<N>`), or None (a
        task's id names none; a unit called `g2` makes it look as if it did)."""
        for part in self.parts[:2]:
            found = _GENERATION.fullmatch(part)
            if found is not None:
                return int(found.group(1))
        return None

    @property
    def generation_child_id(self) -> str | None:
        """The phase or unit of a `<run>/g<N>/<child>` id, else None."""
        if len(self.parts) == 2 and _GENERATION.fullmatch(self.parts[0]) is not None:
            return self.parts[1]
        return None

    @staticmethod
    def of_run(run_id: str) -> str:
        """The prefix every workflow id of the run starts with."""
        return run_id + "/"

    @staticmethod
    def of_generations(run_id: str) -> str:
        """The prefix of the run's generation workflows (and their phases and units)."""
        return run_id + "/g"

    @staticmethod
    def of_fleet_runs(run_id: str) -> str:
        """The prefix of the run's queued-run workflows."""
        return run_id + "/fleet/"

    @staticmethod
    def run_of(text: str) -> str:
        """The run a workflow id belongs to (its first part), checked."""
        return check_component(text.partition("/")[0], "run id")


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class EventId:
    """A typed event's stable id, `<run>/<key>`: a replay that emits it again is dropped."""

    run_id: str
    key: str

    def __post_init__(self) -> None:
        check_component(self.run_id, "run id")
        if not self.key or not self.key.isprintable() or any(c.isspace() for c in self.key):
            raise IdError(f"the event key {self.key[:80]!r} is empty or holds whitespace")

    def format(self) -> str:
        return f"{self.run_id}/{self.key}"

    @classmethod
    def parse(cls, text: str) -> EventId:
        run_id, slash, key = text.partition("/")
        if not slash:
            raise IdError(f"the event id {text[:80]!r} has no '/' after its run id")
        return cls(run_id, key)


def event_id(run_id: str, key: str | EventKey) -> str:
    """The stable id of the run's event `key` (`<run>/<key>`)."""
    return EventId(run_id, key if isinstance(key, str) else key.format()).format()


_EVENT_NAME = re.compile(r"[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*")


@dataclass(frozen=True)
class EventKey:
    """A run's event key for what happened at a place of its plan: `[g<generation>/]<place
    …>/<name>` (`g2/A/unit.started`, `A/T1/task.started`, `g1/P1/wave-1`, `g1/run.started`).

    The generation leads when the event belongs to one generation of the run (a unit, a
    phase, a checkpoint a person answered); a task's own events carry none (a finished task
    is never run again). `parse` reads a leading `g<N>` as the generation, so a key without
    one must not start with a place that looks like it (a unit called `g2`): the engine's
    keys without a generation start with a unit under a task.
    """

    name: str
    """What happened: `task.started`, `unit.merged`, `merge`, `escalation`, `wave-1`, …"""
    place: tuple[str, ...] = ()
    """Where: (phase,), (unit,), (unit, task)."""
    generation: int | None = None

    def __post_init__(self) -> None:
        if _EVENT_NAME.fullmatch(self.name) is None:
            raise IdError(f"the event name {self.name[:80]!r} is not a dotted lower-case word")
        for part in self.place:
            check_component(part, "event place")
        if self.generation is not None and self.generation < 1:
            raise IdError(f"the generation {self.generation} is not 1 or more")

    @classmethod
    def of_task(
        cls, unit_id: str, task_id: str, name: str, generation: int | None = None
    ) -> EventKey:
        """`[g<N>/]<unit>/<task>/<name>`: a task's event (of a generation: a checkpoint, or a
        task a person's answer ended)."""
        return cls(name, (unit_id, task_id), generation)

    @classmethod
    def of_unit(cls, generation: int, unit_id: str, name: str) -> EventKey:
        """`g<N>/<unit>/<name>`: a unit's event in one generation."""
        return cls(name, (unit_id,), generation)

    @classmethod
    def of_phase(cls, generation: int, phase_id: str, name: str) -> EventKey:
        """`g<N>/<phase>/<name>`: a phase's event in one generation."""
        return cls(name, (phase_id,), generation)

    @classmethod
    def of_run(cls, generation: int, name: str) -> EventKey:
        """`g<N>/<name>`: the run's own event in one generation."""
        return cls(name, (), generation)

    def format(self) -> str:
        lead = () if self.generation is None else (f"g{self.generation}",)
        return "/".join((*lead, *self.place, self.name))

    @classmethod
    def parse(cls, text: str) -> EventKey:
        """The key `format` wrote; `IdError` for anything else."""
        *parts, name = text.split("/")
        generation = None
        if parts and (found := _GENERATION.fullmatch(parts[0])) is not None:
            generation, parts = int(found.group(1)), parts[1:]
        return cls(name, tuple(parts), generation)


class HandoffEventKind(StrEnum):
    """What a task's handoff event reports: a failed read of an attempt's result, or a help
    request."""

    READ = "read"
    HELP = "help"


@dataclass(frozen=True)
class HandoffEventId:
    """The stable id of a typed handoff event of a task's implementer (a replay that emits it
    again is dropped): `read:<task>/<folder>/<type>/<attempt>`, a failed read of the result an
    attempt left in `<folder>` (the report's `type` and `attempt`, empty when it has none), or
    `help:<task>/<n>`, the task's `n`-th request for help. `<task>` is the task's workflow id
    `<run>/<unit>/<task>` (never one run again: its parts are fixed in number)."""

    kind: HandoffEventKind
    task: WorkflowId
    place: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.task.parts) != 2:
            raise IdError(f"{self.task.format()!r} is not a task's workflow id <run>/<unit>/<task>")
        if not self.place:
            raise IdError(f"the {self.kind.value} event of {self.task.format()!r} has no place")
        for part in self.place:  # an empty one too: a report without an attempt number
            if "/" in part or any(c.isspace() for c in part):
                raise IdError(f"the handoff event part {part[:80]!r} holds a '/' or whitespace")

    @classmethod
    def read(cls, task: WorkflowId, folder: str, type_: str, attempt: str) -> HandoffEventId:
        return cls(HandoffEventKind.READ, task, (folder, type_, attempt))

    @classmethod
    def help(cls, task: WorkflowId, number: int) -> HandoffEventId:
        return cls(HandoffEventKind.HELP, task, (str(number),))

    def format(self) -> str:
        return f"{self.kind.value}:{self.task.format()}/" + "/".join(self.place)

    @classmethod
    def parse(cls, text: str) -> HandoffEventId:
        kind, colon, rest = text.partition(":")
        try:
            known = HandoffEventKind(kind)
        except ValueError:
            raise IdError(f"{text[:80]!r} is not a handoff event id (read:…, help:…)") from None
        parts = rest.split("/")
        if not colon or len(parts) < 4:
            raise IdError(f"the handoff event id {text[:80]!r} names no task and place")
        return cls(known, WorkflowId(parts[0], tuple(parts[1:3])), tuple(parts[3:]))


# ---------------------------------------------------------------- answers


@dataclass(frozen=True)
class AnswerKey:
    """The task a person's answer names (`resume RUN --answer KEY=…`): `<unit>/<task>`, or
    `<task>` alone (`unit_id` None) when only one unit of the plan has a task of that id."""

    unit_id: str | None
    task_id: str

    def __post_init__(self) -> None:
        if self.unit_id is not None:
            check_component(self.unit_id, "unit id")
        check_component(self.task_id, "task id")

    def format(self) -> str:
        return self.task_id if self.unit_id is None else f"{self.unit_id}/{self.task_id}"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str) -> AnswerKey:
        """The key a person typed; `IdError` for more than two parts or a bad one."""
        unit_id, slash, task_id = text.rpartition("/")
        return cls(unit_id if slash else None, task_id)

    def names(self, unit_id: str, task_id: str) -> bool:
        """True when the key names the task `task_id` of the unit `unit_id`."""
        return self.task_id == task_id and self.unit_id in (None, unit_id)


# ---------------------------------------------------------------- attempts

_ATTEMPT_TASK_PARTS = 3


@dataclass(frozen=True)
class AttemptPath:
    """An agent attempt's folder relative to its run's folder, `<phase>/<unit>/<task>/…`: the
    `attempt` of its row (`store.AttemptRecord`), what `mergegate logs RUN TASK` selects by.

    Read back as recorded, parts and all: a row holds the folder's whole path when it was
    outside the run's folder, and a row of an earlier version must still list."""

    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.parts:
            raise IdError("an attempt's folder path has no part")
        for part in self.parts:
            if "/" in part:
                raise IdError(f"the attempt folder part {part[:80]!r} holds a '/'")

    def format(self) -> str:
        return "/".join(self.parts)

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str) -> AttemptPath:
        return cls(tuple(text.split("/")))

    @property
    def task(self) -> AttemptPath:
        """The folder of the attempt's task: its first three parts (phase, unit, task)."""
        return AttemptPath(self.parts[:_ATTEMPT_TASK_PARTS])

    def starts_with(self, prefix: tuple[str, ...], skip: int = 0) -> bool:
        """True when the parts after the first `skip` begin with `prefix`."""
        return self.parts[skip : skip + len(prefix)] == prefix

    @staticmethod
    def prefix(text: str) -> tuple[str, ...]:
        """The parts of the start of a folder path a person typed (`P1/U1/T1`, `U1/T1/`),
        without empty ones."""
        return tuple(part for part in text.split("/") if part)


# ---------------------------------------------------------------- git branches

INTEGRATION_PREFIX = "mergegate/"
UNIT_PREFIX = "mergegate-unit/"
WIP_PREFIX = "mergegate-wip/"
CARRIER_PREFIX = "mergegate-merge/"


def integration_branch(run_id: str) -> str:
    """The branch a run merges its units into when not told another: `mergegate/<run>`."""
    return INTEGRATION_PREFIX + check_component(run_id, "run id")


def parse_integration_branch(text: str) -> str:
    """The run whose integration branch `text` is; `IdError` for any other branch."""
    if not text.startswith(INTEGRATION_PREFIX):
        raise IdError(f"{text[:80]!r} is not an integration branch ({INTEGRATION_PREFIX}<run>)")
    return check_component(text.removeprefix(INTEGRATION_PREFIX), "run id")


def carrier_branch(run_id: str, name: str) -> str:
    """Across hosts, the remote branch a prepared merge commit waits on until it is published:
    `mergegate-merge/<run>/<name>` (`name`: a unit, or `<phase>-verification`)."""
    return f"{CARRIER_PREFIX}{check_component(run_id, 'run id')}/{check_component(name)}"


def parse_carrier_branch(text: str) -> tuple[str, str]:
    """The (run, name) whose carrier branch `text` is; `IdError` for any other branch."""
    run_id, slash, name = text.removeprefix(CARRIER_PREFIX).partition("/")
    if not text.startswith(CARRIER_PREFIX) or not slash:
        raise IdError(f"{text[:80]!r} is not a carrier branch ({CARRIER_PREFIX}<run>/<name>)")
    return check_component(run_id, "run id"), check_component(name)


@dataclass(frozen=True)
class UnitBranch:
    """A unit's branch, `mergegate-unit/<run>/<unit>`, and its progress branch
    `mergegate-wip/<run>/<unit>` (what an implementer left, pushed for another worker)."""

    run_id: str
    unit_id: str

    def __post_init__(self) -> None:
        check_component(self.run_id, "run id")
        check_component(self.unit_id, "unit id")

    def format(self) -> str:
        return f"{UNIT_PREFIX}{self.run_id}/{self.unit_id}"

    def progress(self) -> str:
        return f"{WIP_PREFIX}{self.run_id}/{self.unit_id}"

    @classmethod
    def parse(cls, text: str) -> UnitBranch:
        """The unit branch `text` names; `IdError` for any other branch."""
        return cls._parse(text, UNIT_PREFIX)

    @classmethod
    def parse_progress(cls, text: str) -> UnitBranch:
        """The unit whose progress branch `text` is; `IdError` for any other branch."""
        return cls._parse(text, WIP_PREFIX)

    @classmethod
    def _parse(cls, text: str, prefix: str) -> UnitBranch:
        if not text.startswith(prefix):
            raise IdError(f"{text[:80]!r} is not a unit branch ({prefix}<run>/<unit>)")
        run_id, slash, unit_id = text.removeprefix(prefix).partition("/")
        if not slash:
            raise IdError(f"the unit branch {text[:80]!r} names no unit")
        return cls(run_id, unit_id)

    @staticmethod
    def run_prefixes(run_id: str) -> tuple[str, str]:
        """What every unit branch and every progress branch of a run starts with:
        `mergegate-unit/<run>/` and `mergegate-wip/<run>/` (to list them)."""
        run_id = check_component(run_id, "run id")
        return f"{UNIT_PREFIX}{run_id}/", f"{WIP_PREFIX}{run_id}/"


# ---------------------------------------------------------------- commit trailers


class Trailer(StrEnum):
    """The trailer keys mergegate ends its commits with (labels for people, never looked up)."""

    TASK = "Mergegate-Task"
    FIX = "Mergegate-Fix"
    UNIT = "Mergegate-Unit"
    SUMMARY = "Mergegate-Summary"
    VERIFICATION = "Mergegate-Verification"


@dataclass(frozen=True)
class TrailerLine:
    """One trailer line, `<key>: <label>`; the label is one line without leading space."""

    kind: Trailer
    label: str

    def __post_init__(self) -> None:
        label = self.label
        if not label or label != label.strip() or "\n" in label or "\r" in label:
            raise IdError(f"the trailer label {label[:80]!r} is not one trimmed line")

    def format(self) -> str:
        return f"{self.kind.value}: {self.label}"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str) -> TrailerLine:
        key, sep, label = text.partition(": ")
        try:
            kind = Trailer(key)
        except ValueError:
            raise IdError(f"{text[:80]!r} is not a mergegate trailer") from None
        if not sep:
            raise IdError(f"the trailer {text[:80]!r} has no ': '")
        return cls(kind, label)

    @classmethod
    def unit(cls, run_id: str, unit_id: str) -> TrailerLine:
        return cls(Trailer.UNIT, f"{run_id}/{unit_id}")

    @classmethod
    def summary(cls, run_id: str, unit_id: str) -> TrailerLine:
        return cls(Trailer.SUMMARY, f"{run_id}/{unit_id}")

    @classmethod
    def verification(cls, run_id: str, phase_id: str, generation: int) -> TrailerLine:
        return cls(Trailer.VERIFICATION, f"{run_id}/{phase_id}/g{generation:02d}")

    @classmethod
    def fix(cls, task_key: str, round_name: str, fix_round: int | None = None) -> TrailerLine:
        """A fix of a task's change, in the round `round_name` (`checks-NN`, a review's), at
        the review's fix round `fix_round` when it has them (`<task>/<round>/rNN`)."""
        label = f"{task_key}/{round_name}"
        return cls(Trailer.FIX, label if fix_round is None else f"{label}/r{fix_round:02d}")


# ---------------------------------------------------------------- DBOS names

APP = "mergegate"
"""The DBOS application name of a run on its own database."""
FLEET_APP = "mergegate-fleet"
"""The DBOS application name of the fleet's workers: they take runs and units from queues
in one shared database, and recover each other's workflows."""
QUEUE = "mergegate-units"
RUN_QUEUE = "mergegate-runs"
"""The fleet's queue of whole runs (`run --queue`): apart from the units' queue, so a run
waiting for its units never holds one of their concurrency slots."""


def app_name_for_run(run_id: str) -> str:
    """The DBOS application name of one local run on a shared database."""
    return f"{APP}-run-{run_id}".lower()


def parse_app_name_for_run(text: str) -> str:
    """The run (lower-cased, as the name holds it) whose application name `text` is."""
    return _run_after(text, f"{APP}-run-", "a run's application name")


def queue_for_run(run_id: str) -> str:
    """The units' queue of one local run on a shared database (`mergegate-units-<run>`)."""
    return f"{QUEUE}-{run_id}"


def parse_queue_for_run(text: str) -> str:
    """The run whose units' queue `text` is; `IdError` for any other name."""
    return _run_after(text, f"{QUEUE}-", "a run's units queue")


def _run_after(text: str, prefix: str, what: str) -> str:
    if not text.startswith(prefix):
        raise IdError(f"{text[:80]!r} is not {what} ({prefix}<run>)")
    return check_component(text.removeprefix(prefix), "run id")


def app_version(version: str, schema: int) -> str:
    """The DBOS application version: DBOS recovers only workflows recorded by the same one."""
    return f"{APP}-{version}-e{schema}"


_APP_VERSION = re.compile(re.escape(APP) + r"-(.+)-e([0-9]{1,9})")


def parse_app_version(text: str) -> tuple[str, int]:
    """The (version, schema) `app_version` made `text` from; else `IdError`."""
    found = _APP_VERSION.fullmatch(text)
    if found is None:
        raise IdError(f"{text[:80]!r} is not an application version ({APP}-<version>-e<N>)")
    return found.group(1), int(found.group(2))


def run_app_version(version: str, run_id: str) -> str:
    """The application version of one local run (`app_version(…)` then `-run-<run>`)."""
    return f"{version}-run-{run_id}"


def parse_run_app_version(text: str) -> tuple[str, str]:
    """The (application version, run) `run_app_version` made `text` from; else `IdError`."""
    version, sep, run_id = text.rpartition("-run-")
    if not sep or not version:
        raise IdError(f"{text[:80]!r} is not a run's application version (<version>-run-<run>)")
    return version, check_component(run_id, "run id")
