"""Runs: each one's card, plan and state in its database, and its folder for people.

A run's card (`RunRecord`: what was asked — plan, integration branch, agents, options — and where
it stands) and its plan snapshot are rows of mergegate's own tables (`_tables`), with
everything else a run decides from (`RunRows`: a person's answers, the stop request, unit and
phase outcomes, verification results, the budget's spending, the processes it started). The
database is the run's own SQLite file, `<state>/db/<run-id>.sqlite`, or the one
`[engine] database_url` names. The run's folder, `<state>/runs/<run-id>/`, holds what people
read: reports, summaries, logs, and copies of the card and plan (`run.json`, `plan.json`) that
mergegate writes and never reads back (an agent can write in that folder).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mergegate.atomic_files import write_json_atomic
from mergegate.config import StateLayout, ensure_state_dir
from mergegate.errors import UsageError
from mergegate.events import EventBase, EventStream, UnknownEvent, fit_line, read_event_lines
from mergegate.ids import (
    IdError,
    check_component,
    new_run_id,  # re-exported: `mergegate.store.new_run_id` is public
)
from mergegate.plans import Plan
from mergegate.processes import ProcessRecord, SupervisorRecord
from mergegate.store._blobs import LogCopies, StoredLog
from mergegate.store._dbos import DatabaseUnavailableError, sqlite_url
from mergegate.store._leases import Leases
from mergegate.store._tables import Key, Tables, tables

__all__ = [
    "EXCERPT_CHARS",
    "AttemptRecord",
    "LogsCollected",
    "RecordKind",
    "RunDocument",
    "RunRecord",
    "RunRows",
    "RunState",
    "RunStore",
    "StateKind",
    "StreamRead",
    "new_run_id",
    "stopping_runs",
]

_RUN_FILE = "run.json"
_PLAN_FILE = "plan.json"
_LEASES_FILE = "leases.sqlite"
M = TypeVar("M", bound=BaseModel)
AgentsT = TypeVar("AgentsT", bound=BaseModel)
"""What a run's card records of its agents: the engine's model (`mergegate.engine.RunAgents`)."""
OptionsT = TypeVar("OptionsT", bound=BaseModel)
"""What a run's card records of its options: the engine's model (`mergegate.engine.RunOptions`)."""


class RunState(StrEnum):
    """Where a run stands (`runs` and `status` show these)."""

    RUNNING = "running"
    """Started and not finished: in progress, or stopped by a crash (`resume` continues it)."""
    COMPLETED = "completed"
    """Every unit merged."""
    ESCALATED = "escalated"
    """Stopped for a person: a cap, a stall, a conflict or a budget (exit 5)."""
    WAITING_FOR_HUMAN = "waiting_for_human"
    """A checkpoint task waits for `resume --answer`."""
    FAILED = "failed"
    """An agent or infrastructure failure, or an undecidable review stopped it (exit 4/3)."""
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    """Stopped by a person's Ctrl-C (SIGINT or SIGTERM): its agents were killed and nothing
    they did was recorded; `resume` continues it from its last recorded step."""


class RunRecord(BaseModel, Generic[AgentsT, OptionsT]):
    """The card of one run (a copy for people in `run.json`).

    Generic over the models of its agents and options, which belong to the engine (a layer
    above this one): the store keeps and reads the card whole, and whoever reads it names the
    concrete card (`mergegate.engine.EngineRunRecord`, `RunRecord[RunAgents, RunOptions]`), so
    both are typed when the card is read and never re-validated from a dict. A bare
    `RunRecord` is refused by every `RunStore` method (its agents and options would be read as
    empty `BaseModel`s); `tests/test_run_card_typed.py` keeps it out of the code.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    status: RunState = RunState.RUNNING
    started: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    started_epoch: float = Field(default_factory=time.time)
    finished: str | None = None
    plan: str = ""
    """The plan's title, or the file it came from."""
    plan_path: str | None = None
    """The plan as it was given (a file or a `.planning` directory), resolved."""
    plan_root: str | None = None
    """The directory the plan's source paths are relative to (GSD write-back goes there)."""
    repo: str
    into: str
    """The integration branch units merge into."""
    base_sha: str
    generation: int = 1
    """Incremented each time `resume --answer` continues a run that waited for a person."""
    exit_code: int | None = None
    message: str = ""
    agents: AgentsT
    """How to rebuild the implementer, reviewer and verifier on `resume` (names, commands)."""
    options: OptionsT
    """How the run behaves (concurrency, review, sandbox, budgets): `resume` behaves the same."""
    database: str | None = None
    """The shared database (`[engine] database_url`, redacted) that holds the run's durable
    state; None: the run's own SQLite file under its folder."""
    fleet: bool = False
    """Queued for a fleet of workers (`run --queue`), not executed by the process that made it."""
    remote: str | None = None
    """The git remote a fleet across hosts shares (`run --queue --remote`): workers fetch
    from it and push unit branches and merges to it; None: every worker reaches `repo`."""

    def summary(self) -> dict[str, object]:
        """The `runs --format json` entry."""
        return {
            "run_id": self.run_id,
            "status": self.status.value,
            "started": self.started,
            "plan": self.plan,
        }


Card = TypeVar("Card", bound="RunRecord[Any, Any]")
"""A concrete card type (`RunRecord[Agents, Options]`): what a `RunStore` reads a card as."""


def _concrete(card: type[Card]) -> type[Card]:
    """`card`, when its agents and options are concrete models; `TypeError` for a bare
    `RunRecord` (or one still generic in either), which would read them as empty models."""
    if card.__pydantic_generic_metadata__["parameters"]:
        raise TypeError(
            f"{card.__name__} is generic: read and write a run's card as a concrete "
            "RunRecord[Agents, Options] (the engine's EngineRunRecord)"
        )
    return card


class StateKind(StrEnum):
    """What a row of a run's state holds, and what its key is."""

    ANSWER = "answer"
    """(unit, task): a person's answer to a checkpoint task (`resume --answer`)."""
    TAKEOVER = "takeover"
    """(unit, task, generation): a person taking over an escalated or failed task
    (`resume --answer UNIT/TASK=approve|skip|retry`), for the generation it starts."""
    CRITERION_ANSWER = "criterion_answer"
    """(phase, when, criterion): a person's answer to an open criterion of a phase."""
    GAPS = "gaps"
    """(phase,): a person's acceptance of a phase's gaps (`resume --accept-gaps`)."""
    STOP = "stop"
    """(): why no agent of the run may start any more (`cancel`, `on_escalation = stop`)."""
    UNIT = "unit"
    """(phase, unit): where a unit stands, or how it ended."""
    PHASE = "phase"
    """(phase,): a phase's base, units and verification."""
    VERIFICATION = "verification"
    """(phase, generation): a phase's verification result."""
    WORKSPACE = "workspace"
    """(unit,): the unit's workspace on a fleet that shares a filesystem (first writer wins)."""
    ORPHANED = "orphaned"
    """(executor, pid): an agent group a dead worker left on a host the recovery could not
    reach (its records name another host or boot); shown by `status` until killed."""
    LOGS_COLLECTED = "logs_collected"
    """(): `gc` deleted the run's shipped logs (`LogsCollected`); its attempts no longer keep
    a copy another run shares."""


class RecordKind(StrEnum):
    """What a record for people holds (`RunRows.put_record`), and what its key is. The files
    of the same name in the run's folder are for people on the host that wrote them; these
    rows are what every other host with the database URL reads (`report`)."""

    PHASE_SUMMARY = "phase_summary"
    """(phase,): a phase's summary (its units, its verification), its value the phase."""
    VERIFICATION = "verification"
    """(phase, generation `gNNNN`): a phase's verification report (`VERIFICATION.md`: every
    criterion with its evidence), its value the `VerificationResult` (the `verify/` ledger's
    result, as the run decided from it)."""
    UNIT_SUMMARY = "unit_summary"
    """(phase, unit): a unit's `SUMMARY.md`, its value where the unit stands."""
    TASK_REVIEW = "task_review"
    """(phase, unit, task number): a task's review report (`<phase>-<unit>-REVIEW-T<n>.md`),
    its value the task's outcome: every verdict of its reviews (review, round, stage,
    attempt, decision, summary, confidence) and every finding."""


class RunDocument(BaseModel):
    """A record for people as every host reads it back: which, and its markdown (agent text
    in it is escaped or fenced as the file's is; a page that shows it escapes it again)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: RecordKind
    key: Key
    markdown: str


def _key_order(key: Key) -> tuple[tuple[int, int, str], ...]:
    """Keys in reading order: a task numbered 10 after one numbered 2."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in key)


class _Stop(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: str
    at: float
    running: bool = False
    """The agents already running are stopped too (`cancel`), on every worker's host."""


EXCERPT_CHARS = 4_000
"""The most of an agent's log an attempt's row keeps: its end (where an agent says why it
stopped)."""


class AttemptRecord(BaseModel):
    """One agent attempt of a run as its database keeps it: what ran and how it ended, and
    the agent's log by reference — it stays on the disk of the host that ran it (`host`,
    `log_path`), with its size, the SHA-256 of its content and its last `EXCERPT_CHARS`
    characters here, so any host can show the end of it and tell the file it names is the
    one the attempt wrote."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attempt: str = Field(max_length=1_000)
    """The attempt's folder under the run's (`<phase>/<unit>/<task>/attempts/NN-implementer`)."""
    role: str = Field(max_length=40)
    backend: str = Field(max_length=200)
    status: str = Field(max_length=40)
    exit_code: int | None = None
    duration_s: float = 0.0
    tokens: int = 0
    cost_usd: float | None = None
    session_id: str | None = Field(default=None, max_length=200)
    error: str = Field(default="", max_length=1_000)
    host: str = Field(max_length=255)
    log_path: str = Field(default="", max_length=4_096)
    log_bytes: int = 0
    log_sha256: str = Field(default="", max_length=64)
    log_excerpt: str = Field(default="", max_length=EXCERPT_CHARS)


class LogsCollected(BaseModel):
    """`gc` deleted a run's shipped logs: when (UTC, ISO 8601)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: str = Field(max_length=40)


@dataclass(frozen=True)
class StreamRead:
    """A run's stream as read from its database: its events, the position of the last row
    read and how many rows were read (what `RunRows.read_stream` continues from)."""

    stream: EventStream
    position: int
    rows: int


def _joined(head: EventStream, tail: EventStream) -> EventStream:
    """`head` then `tail`, read apart, as one read of both would be (an id of `tail` already in
    `head` is a replay, dropped and counted)."""
    ids = {e.event_id for e in head.events if e.event_id}
    fresh = tuple(e for e in tail.events if not (e.event_id and e.event_id in ids))
    return replace(
        head,
        events=head.events + fresh,
        unknown=head.unknown + sum(isinstance(e, UnknownEvent) for e in fresh),
        replayed=head.replayed + tail.replayed + len(tail.events) - len(fresh),
        torn=head.torn or tail.torn,
    )


class RunRows:
    """One run's state in its database: typed values by kind and key, the stop request, the
    budget's spending and the processes the run started. Only mergegate writes these."""

    def __init__(self, db: Tables, run_id: str) -> None:
        self.db = db
        self.run_id = run_id

    def put(self, kind: StateKind, key: Key, value: BaseModel, *, replace: bool = True) -> bool:
        """Store `value`; without `replace` only if the key holds nothing yet (the first
        writer wins). True when `value` is what the key holds now."""
        return self.db.put(self.run_id, kind.value, key, value.model_dump_json(), replace=replace)

    def get(self, kind: StateKind, key: Key, model: type[M]) -> M | None:
        found = self.db.get(self.run_id, kind.value, key)
        return None if found is None else self._parse(kind.value, found, model)

    def items(self, kind: StateKind, model: type[M], prefix: Key = ()) -> list[tuple[Key, M]]:
        """Every value of `kind` whose key starts with `prefix`, in key order."""
        return [
            (key, self._parse(kind.value, raw, model))
            for key, raw in self.db.items(self.run_id, kind.value, prefix)
        ]

    def _parse(self, kind: str, raw: str, model: type[M]) -> M:
        try:
            return model.model_validate_json(raw)
        except ValidationError as exc:
            raise UsageError(
                f"run {self.run_id}: a {kind} in its database cannot be read by this "
                f"mergegate: {exc.errors()[0]['msg'] if exc.errors() else exc}"
            ) from exc

    # ------------------------------------------------------------ stopping

    def request_stop(self, reason: str, *, replace: bool = False, running: bool = False) -> None:
        """No agent of the run starts after this (every process and worker of the run sees
        it before its next agent); with `running`, the agents already running are killed too,
        each by the worker that started it (`stopping_runs`). Without `replace`, an earlier
        request is kept."""
        stop = _Stop(reason=reason, at=time.time(), running=running)
        self.put(StateKind.STOP, (), stop, replace=replace)

    def clear_stop(self) -> None:
        """Let agents of the run start again (a person answered what stopped it)."""
        self.db.delete(self.run_id, StateKind.STOP.value, ())

    def stop_request(self) -> str | None:
        """Why the run must not start another agent, or None."""
        found = self.get(StateKind.STOP, (), _Stop)
        return None if found is None else found.reason

    # ------------------------------------------------------------ the budget's spending

    def add_usage(self, tokens: int, cost_usd: float) -> None:
        self.db.add_usage(self.run_id, tokens, cost_usd)

    def usage(self) -> tuple[int, float]:
        """Tokens and dollars every process of the run recorded so far."""
        return self.db.usage(self.run_id)

    # ------------------------------------------------------------ the event stream

    def append_event(self, event: EventBase) -> bool:
        """Append `event` to the run's stream in the database, as the one bounded line
        `fit_line` makes of it (what `events.jsonl` holds); a second event with the same
        `event_id` is dropped, on any worker (a replayed step). True when appended."""
        event, data = fit_line(event)
        line = data.decode("utf-8").rstrip("\n")
        at = event.at.isoformat()
        return self.db.append_event(self.run_id, event.event_id, event.kind, at, line)

    def event_stream(self) -> EventStream:
        """The run's stream as every worker appended it (empty for a run whose events went
        only to its folder's `events.jsonl`: made by an older mergegate). `EventLogError`
        (exit 2) naming the run and row for a row this version must not skip."""
        return self.read_stream().stream

    def read_stream(self, since: StreamRead | None = None) -> StreamRead:
        """The run's stream as `event_stream` reads it, and where the read ended. With `since`
        (a read of this run's stream before), only the rows appended after it are read and
        parsed — unless a row committed since at a position below its end, or a row was
        removed (the count of rows up to its end changed): then the whole stream is read."""
        if since is not None and self.db.event_count(self.run_id, since.position) != since.rows:
            since = None
        after, rows = (since.position, since.rows) if since is not None else (0, 0)
        found = self.db.event_lines(self.run_id, after)
        tail = read_event_lines(
            (line for _, line in found),
            where=f"run {self.run_id}'s events",
            run_id=self.run_id,
            first=rows + 1,
        )
        position = found[-1][0] if found else after
        stream = tail if since is None else _joined(since.stream, tail)
        return StreamRead(stream=stream, position=position, rows=rows + len(found))

    # ------------------------------------------------------------ agent attempts

    def record_attempt(self, record: AttemptRecord) -> None:
        """An agent attempt's record (one per attempt folder; an attempt run again after a
        crash replaces the lost one's)."""
        self.db.put_attempt(self.run_id, record.attempt, record.model_dump_json())

    def attempts(self) -> list[AttemptRecord]:
        """The run's agent attempts, by folder, whichever host ran them."""
        found = []
        for raw in self.db.attempts(self.run_id):
            try:
                found.append(AttemptRecord.model_validate_json(raw))
            except ValidationError as exc:
                raise UsageError(
                    f"run {self.run_id}: an attempt in its database cannot be read by this "
                    f"mergegate: {exc.errors()[0]['msg'] if exc.errors() else exc}"
                ) from exc
        return found

    # ------------------------------------------------------------ records for people

    def collect_logs(self, also: Sequence[str] = (), *, dry_run: bool) -> list[StoredLog]:
        """Delete the shipped copies of the run's agent logs that no other run names (`gc`),
        or with `dry_run` list them (`also`: other runs collected with it, whose attempts do
        not keep a copy). The run is marked first, so a copy it shares with a run collected
        later goes with that one, and a `gc` cut short deletes the rest when run again."""
        hashes = [a.log_sha256 for a in self.attempts() if a.log_sha256]
        if not dry_run:
            done = LogsCollected(at=datetime.now(UTC).isoformat(timespec="seconds"))
            self.put(StateKind.LOGS_COLLECTED, (), done)
        kind = StateKind.LOGS_COLLECTED.value
        return LogCopies(self.db).collect(self.run_id, hashes, kind, also=also, dry_run=dry_run)

    def logs_collected(self) -> LogsCollected | None:
        """When `gc` deleted the run's shipped logs, or None."""
        return self.get(StateKind.LOGS_COLLECTED, (), LogsCollected)

    def put_record(self, kind: RecordKind, key: Key, value: BaseModel, markdown: str) -> None:
        """A record for people: `value` (the typed value it renders, as its JSON) and its
        `markdown`, replacing what the key held (records are rewritten as the run goes on)."""
        self.db.put_record(self.run_id, kind.value, key, value.model_dump_json(), markdown)

    def put_with_record(
        self, kind: StateKind, record: RecordKind, key: Key, value: BaseModel, markdown: str
    ) -> None:
        """`put(kind, key, value)` and `put_record(record, key, value, markdown)` in one
        transaction (a unit's or a phase's outcome and its summary)."""
        state = (kind.value, record.value)
        self.db.put_with_record(self.run_id, state, key, value.model_dump_json(), markdown)

    def records(self, kind: RecordKind, model: type[M]) -> list[tuple[Key, M]]:
        """The typed values of the run's records of `kind`, in reading order."""
        found = [
            (key, self._parse(kind.value, raw, model))
            for k, key, raw, _ in self.db.records(self.run_id)
            if k == kind.value
        ]
        return sorted(found, key=lambda item: _key_order(item[0]))

    def documents(self) -> list[RunDocument]:
        """The run's records for people, phases' first, then units', then tasks', each in
        reading order of their keys (a kind this mergegate does not know, written by a newer
        one, is left out)."""
        known = {k.value for k in RecordKind}
        order = {k: n for n, k in enumerate(RecordKind)}
        found = [
            RunDocument(kind=RecordKind(kind), key=key, markdown=markdown)
            for kind, key, _, markdown in self.db.records(self.run_id)
            if kind in known
        ]
        return sorted(found, key=lambda d: (order[d.kind], _key_order(d.key)))

    # ------------------------------------------------------------ processes

    def record_process(
        self, record: ProcessRecord, attempt_dir: Path | None, *, executor_id: str
    ) -> None:
        """A process group the run started (before anyone waits on it)."""
        self.db.record_process(self.run_id, executor_id, record, attempt_dir)

    def processes(self) -> list[tuple[Path | None, ProcessRecord]]:
        return [(d, r) for _, d, r in self.db.processes(run_id=self.run_id)]

    def forget_processes(self, records: list[ProcessRecord]) -> None:
        self.db.forget_processes(self.run_id, records)

    def record_supervisor(self, supervisor: SupervisorRecord, *, executor_id: str) -> None:
        """A process about to start the run's children, before its first one."""
        self.db.record_supervisor(self.run_id, executor_id, supervisor)

    def supervisors(self) -> list[SupervisorRecord]:
        return [s for _, s in self.db.supervisors(run_id=self.run_id)]

    def forget_supervisors(self, supervisors: list[SupervisorRecord]) -> None:
        self.db.forget_supervisors(self.run_id, [s.token for s in supervisors])


def stopping_runs(db: Tables, executor_id: str) -> list[str]:
    """The runs, among those where `executor_id` has processes recorded, whose stop request
    stops their running agents too (`cancel`): what that executor kills on its host."""
    found = []
    for run_id, raw in db.values_where_executor_runs(executor_id, StateKind.STOP.value, ()):
        try:
            stop = _Stop.model_validate_json(raw)
        except ValidationError:
            continue  # a request this mergegate cannot read: the agents finish, none starts
        if stop.running:
            found.append(run_id)
    return found


class RunStore:
    """The runs of one state directory: their state in the database, their folders (for
    people) under `<state>/runs`.

    `database_url` is the configured database (`[engine] database_url`); without one each run
    keeps its state in its own SQLite file. A run is looked for in the configured database
    first, then in its own file, so `status` shows a run made either way; `resume` checks the
    run continues on the database it started on.
    """

    def __init__(self, state_dir: Path, database_url: str | None = None) -> None:
        self.layout = StateLayout(state_dir)
        self.root = self.layout.runs
        self.database_url = database_url
        self._located: dict[str, Tables] = {}

    def run_dir(self, run_id: str) -> Path:
        try:
            check_component(run_id, "run id")  # no '/', '..' or separator: a folder in `root`
        except IdError:
            raise UsageError(f"not a run id: {run_id!r}") from None
        return self.root / run_id

    def database_path(self, run_id: str) -> Path:
        """The run's own SQLite file (one per run: recovering one run never starts another,
        and parallel runs never share a lock); outside the run's folder."""
        self.run_dir(run_id)  # checks the id
        return self.layout.databases / f"{run_id}.sqlite"

    def _own(self, run_id: str) -> Tables | None:
        path = self.database_path(run_id)
        return tables(f"sqlite:///{path}") if path.is_file() else None

    def locate(self, run_id: str) -> Tables:
        """The database that holds the run; `UsageError` (exit 2) naming the run when none
        does."""
        found = self._located.get(run_id)
        if found is not None:
            return found
        candidates = [tables(self.database_url)] if self.database_url else []
        own = self._own(run_id)
        candidates += [own] if own is not None else []
        for db in candidates:
            if db.card(run_id) is not None:
                self._located[run_id] = db
                return db
        raise UsageError(self._missing(run_id))

    def _missing(self, run_id: str) -> str:
        if not self.run_dir(run_id).is_dir():
            return f"no run {run_id!r} under {self.root}"
        return (
            f"run {run_id} has no record in its database: its creation was interrupted, it "
            "was made by an older mergegate (which kept its card in run.json), or it keeps "
            "its state in a database this process is not configured for (set [engine] "
            "database_url or MERGEGATE_DATABASE_URL as when it started)"
        )

    def rows(self, run_id: str) -> RunRows:
        return RunRows(self.locate(run_id), run_id)

    def leases(self) -> Leases:
        """The leases of this state directory's runs: in the configured database, else in
        `<state>/db/leases.sqlite`."""
        if self.database_url:
            return Leases(tables(self.database_url))
        ensure_state_dir(self.layout.root)
        path = self.layout.databases / _LEASES_FILE
        return Leases(tables(sqlite_url(path)))

    def create(self, record: RunRecord[Any, Any], plan: Plan) -> Path:
        """Record a new run (card and plan in one transaction), make its folder and write the
        copies for people; an existing run is a usage error."""
        _concrete(type(record))
        ensure_state_dir(self.layout.root)
        if self.database_url:
            db = tables(self.database_url)
        else:
            db = tables(sqlite_url(self.database_path(record.run_id)))
        plan_json = plan.model_dump_json(indent=2, by_alias=True)
        if not db.insert_run(record.run_id, record.model_dump_json(), plan_json):
            raise UsageError(f"run {record.run_id} already exists")
        self._located[record.run_id] = db
        path = self.run_dir(record.run_id)
        path.mkdir(parents=True, exist_ok=True)
        self._copy(record)
        self._write_plan(record.run_id, plan)
        return path

    def folder_here(self, record: RunRecord[Any, Any]) -> Path:
        """The folder of the run `record` is the card of, under this state directory, made
        from its rows when it is not here yet (a fleet worker on another host than the one
        that queued the run): the copies for people (`run.json`, `plan.json`) written, the
        rest left to the steps that write there. The run must be recorded in a database
        (`UsageError` otherwise); `record` is a concrete `RunRecord[Agents, Options]`."""
        _concrete(type(record))
        path = self.run_dir(record.run_id)
        if not path.is_dir():
            plan = self.plan(record.run_id)  # located first: no folder for an unknown run
            ensure_state_dir(self.layout.root)  # the state directory, as `create` makes it
            path.mkdir(parents=True, exist_ok=True)
            self._copy(record)
            self._write_plan(record.run_id, plan)
        return path

    def _write_plan(self, run_id: str, plan: Plan) -> None:
        """`plan.json`, the plan snapshot for people (never read back: the row decides)."""
        write_json_atomic(
            self.run_dir(run_id) / _PLAN_FILE, plan.model_dump(mode="json", by_alias=True)
        )

    def _copy(self, record: RunRecord[Any, Any]) -> None:
        """`run.json`, for people and tools that read the folder (never read back)."""
        folder = self.run_dir(record.run_id)
        if folder.is_dir():
            write_json_atomic(folder / _RUN_FILE, record)

    def save(self, record: RunRecord[Any, Any]) -> None:
        """Write the card back (its database row and `run.json`)."""
        _concrete(type(record))
        self.locate(record.run_id).update_card(record.run_id, record.model_dump_json())
        self._copy(record)

    def load(self, run_id: str, card: type[Card]) -> Card:
        """The run's card, read as `card` (a concrete `RunRecord[Agents, Options]`, else
        `TypeError`); `UsageError` (exit 2) naming the run when there is none or it does not
        fit `card`."""
        _concrete(card)
        raw = self.locate(run_id).card(run_id)
        assert raw is not None  # located by its card
        try:
            return card.model_validate_json(raw)
        except ValidationError as exc:
            raise UsageError(f"run {run_id}: its card cannot be read: {exc}") from exc

    def plan(self, run_id: str) -> Plan:
        """The plan the run executes, as it was when the run was made."""
        raw = self.locate(run_id).plan(run_id)
        assert raw is not None
        try:
            return Plan.model_validate_json(raw)
        except ValidationError as exc:
            raise UsageError(f"run {run_id}: its plan cannot be read: {exc}") from exc

    def list(self, card: type[Card]) -> list[Card]:
        """Every run with a folder here, and every run the configured database holds (made
        on any host), oldest first, each card read as `card`; folders without a readable
        record in a database are skipped (and a run's own SQLite file that cannot be read).
        The configured database unreachable is an error (exit 4), not an empty list."""
        _concrete(card)
        names = {p.name for p in self.root.iterdir() if p.is_dir()} if self.root.is_dir() else set()
        if self.database_url:
            names.update(tables(self.database_url).run_ids())
        found = []
        for name in sorted(names):
            try:
                found.append(self.load(name, card))
            except UsageError:
                continue
            except DatabaseUnavailableError:
                if self.database_url:
                    raise
                continue
        return sorted(found, key=lambda r: (r.started_epoch, r.run_id))
