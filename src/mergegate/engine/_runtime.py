"""The live context of the run this process executes: what workflows and steps look up.

DBOS passes workflows only their (serialisable) arguments, and recovers pending workflows in
the background as soon as it launches. So the process installs one `Runtime` before launch: the
plan snapshot, the repository, the agents rebuilt from the run's card, the options and the
event sink. One run per process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mergegate.agents.base import Backend
from mergegate.config import Config
from mergegate.engine.events import EventSink, RunEvent
from mergegate.plans import Phase, Plan, Task, Unit
from mergegate.store import RunRecord, RunStore

__all__ = ["Human", "RunOptions", "Runtime", "current", "install", "uninstall"]

Human = Callable[[str], bool]
"""Shows a person a text on the terminal and returns their yes/no (review.mode = manual)."""


@dataclass(frozen=True)
class RunOptions:
    """How a run behaves; recorded in `run.json` so `resume` behaves the same."""

    concurrency: int = 2
    review_mode: Literal["auto", "manual", "off"] = "auto"
    on_escalation: Literal["continue", "stop"] = "continue"
    fix_commits: Literal["separate", "amend"] = "separate"
    max_rounds: int = 3
    phase: str | None = None
    agent_timeout_s: float = 1800.0
    stall_timeout_s: float = 300.0
    check_timeout_s: float = 600.0
    run_wall_s: float | None = None
    task_wall_s: float | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, values: dict[str, object]) -> RunOptions:
        known = {k: v for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)  # type: ignore[arg-type]


@dataclass
class Usage:
    """Tokens and cost spent by the run so far (this process's view, seeded from records)."""

    tokens: int = 0
    cost_usd: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, tokens: int, cost: float | None) -> None:
        with self.lock:
            self.tokens += tokens
            self.cost_usd += cost or 0.0


@dataclass
class Runtime:
    """Everything the workflows of one run need that is not in their arguments."""

    record: RunRecord
    store: RunStore
    plan: Plan
    repo: Path
    config: Config
    options: RunOptions
    implementer: Backend
    reviewer: Backend | None
    events: EventSink = field(default_factory=EventSink)
    human: Human | None = None
    usage: Usage = field(default_factory=Usage)
    worktree_root: Path | None = None

    @property
    def run_id(self) -> str:
        return self.record.run_id

    @property
    def run_dir(self) -> Path:
        return self.store.run_dir(self.record.run_id)

    @property
    def worktrees(self) -> Path:
        return self.worktree_root or (self.store.root.parent / "worktrees" / self.run_id)

    def phase(self, phase_id: str) -> Phase:
        return next(p for p in self.plan.phases if p.id == phase_id)

    def unit(self, phase_id: str, unit_id: str) -> Unit:
        return next(u for u in self.phase(phase_id).units if u.id == unit_id)

    def task(self, phase_id: str, unit_id: str, index: int) -> Task:
        return self.unit(phase_id, unit_id).tasks[index]

    def unit_dir(self, phase_id: str, unit_id: str) -> Path:
        return self.run_dir / phase_id / unit_id

    def unit_branch(self, unit_id: str) -> str:
        return f"mergegate-unit/{self.run_id}/{unit_id}"

    def unit_worktree(self, unit_id: str) -> Path:
        return self.worktrees / unit_id

    def emit(self, kind: str, message: str, **fields: str) -> None:
        self.events.emit(RunEvent(kind, message, **fields))  # type: ignore[arg-type]

    def stop_file(self) -> Path:
        return self.run_dir / "STOP"


_installed: list[Runtime] = []


def install(runtime: Runtime) -> None:
    _installed[:] = [runtime]


def uninstall() -> None:
    _installed.clear()


def current() -> Runtime:
    """The runtime installed by `mergegate run`/`resume` (a bug if there is none)."""
    if not _installed:
        raise RuntimeError("no mergegate run is installed in this process")
    return _installed[0]
