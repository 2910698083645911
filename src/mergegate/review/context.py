"""What the review steps work with besides their state: a repository, the agents, the options,
the run's directory and a place to report progress.

The steps never keep anything here between calls: all that changes lives in the
`ReviewState` they take and return. A `ReviewContext` can therefore be rebuilt from the
configuration at any time, e.g. by a durable workflow resuming after a crash.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from mergegate.git import KeptSnapshots
from mergegate.ids import new_check_run_id
from mergegate.review.events import EventKind, ReviewEvent
from mergegate.review.options import ReviewAgents, ReviewOptions
from mergegate.review.reports import ReportWriter

__all__ = ["Repository", "ReviewContext", "new_review_id", "new_run_id"]

# A review run's id is a check run's id (`mergegate.ids`); the old name stays public.
new_run_id = new_check_run_id


class Repository(Protocol):
    """The git operations the review needs, on one work tree (`mergegate.git.GitRepository`;
    the run engine gives the task's worktree)."""

    root: Path

    def resolve(self, ref: str) -> str: ...
    def diff(self, base: str, head: str) -> str: ...
    def changed_files(self, base: str, head: str) -> list[str]: ...
    def read_file(self, rev: str, path: str) -> str | None: ...
    def read_files(self, rev: str, paths: Sequence[str]) -> dict[str, str | None]:
        """`read_file` of each path (None for each absent), in as few git commands as it can."""
        ...

    def commit_all(self, message: str) -> str | None: ...
    def checkout(self, rev: str) -> AbstractContextManager[Path]:
        """A throwaway checkout of `rev` for a read-only reviewer (the same path each time)."""
        ...


def new_review_id() -> str:
    """A fresh nonce for one reviewer attempt (the JSON trailer must carry it)."""
    return f"mg-{uuid.uuid4().hex[:16]}"


def _ignore(_event: ReviewEvent) -> None:
    return None


@dataclass(frozen=True)
class ReviewContext:
    """The fixed inputs of one review run's steps.

    `run_dir` is the run's own directory: every attempt's prompt, raw output, logs and process
    record go under it, next to the reports. `events` receives one `ReviewEvent` per step (raw
    reviewer text inside: a renderer must escape it).
    """

    repo: Repository
    agents: ReviewAgents
    options: ReviewOptions
    run_dir: Path
    events: Callable[[ReviewEvent], None] = _ignore
    new_review_id: Callable[[], str] = new_review_id
    snapshots: KeptSnapshots | None = None
    """The read-only check's snapshots carried from one reviewer run to the next
    (`AgentRequest.kept_snapshots`); set only by a caller that knows nothing else changes the
    checkout or the repository between them. None: each run snapshots afresh."""
    writer: ReportWriter = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "writer", ReportWriter.at(self.run_dir))

    def emit(
        self,
        kind: EventKind,
        message: str,
        *,
        round: int = 0,
        stage: str = "",
        attempt: int = 0,
        ok: bool | None = None,
        details: tuple[str, ...] = (),
    ) -> None:
        self.events(ReviewEvent(kind, message, round, stage, attempt, ok, details))
