"""The review gate and the revision loop: a short driver over the review steps.

One run: review the change in stages (spec compliance, then code quality), each parsed by the
verdict library; a malformed or empty review is retried (once by default) in the same session
with the parse error fed back, and then stops the run — it never becomes fix work. With `fix`,
a non-approving valid verdict becomes a fix prompt built only from its findings; mergegate
commits the implementer's changes as one fix commit per round and re-reviews **only the fix
diff** plus the still-open findings (or, with `rereview="full"`, the whole change again). Every
loop is capped and a loop that stops converging is escalated to a person with a package on disk.

The work is done by the steps of `mergegate.review.steps`; `ReviewLoop` runs them in order and
checkpoints the state after each one under `<run dir>/state/` (never overwriting), so a run
that died can be continued with `ReviewLoop(..., state=load_state(run_dir))` without running
any completed step again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mergegate.agents.base import Backend
from mergegate.atomic_files import write_atomic
from mergegate.errors import UsageError
from mergegate.review.context import Repository, ReviewContext, new_review_id, new_run_id
from mergegate.review.events import ReviewEvent
from mergegate.review.options import ReviewAgents, ReviewOptions
from mergegate.review.state import (
    AttemptSummary,
    ReviewOutcome,
    ReviewState,
    ReviewStatus,
    RoundSummary,
)
from mergegate.review.steps import ReviewStop, decide, finish_review, run_step, start_review

__all__ = [
    "AttemptSummary",
    "Repository",
    "ReviewLoop",
    "ReviewOutcome",
    "ReviewStatus",
    "RoundSummary",
    "load_state",
]

STATE_DIR = "state"
"""Where the driver checkpoints the state in a run directory: `state/0001.json`, …"""


class ReviewLoop:
    """Runs the review gate (and, with `options.fix`, the revision loop) for one change.

    Records go to `run_dir`, or to `report_root/<run id>/`. Progress is reported twice over:
    `events` receives a typed `ReviewEvent` per step (for live displays), and `progress`
    receives each event's message as one plain line. Both carry raw reviewer text; a renderer
    must escape it. With `state` (see `load_state`), the run continues where that state stood.
    """

    def __init__(
        self,
        repo: Repository,
        reviewer: Backend,
        options: ReviewOptions,
        *,
        report_root: Path | None = None,
        run_dir: Path | None = None,
        implementer: Backend | None = None,
        fresh_implementer: Backend | None = None,
        progress: Callable[[str], None] = lambda _msg: None,
        events: Callable[[ReviewEvent], None] | None = None,
        run_id: str | None = None,
        new_review_id: Callable[[], str] = new_review_id,
        state: ReviewState | None = None,
    ) -> None:
        if options.fix and implementer is None:
            raise ValueError("fix mode needs an implementer")
        self.run_id = state.run_id if state else (run_id or new_run_id())
        if run_dir is None:
            if report_root is None:
                raise ValueError("give report_root or run_dir")
            run_dir = report_root / self.run_id
        self.state = state
        self.options = options

        def on_event(event: ReviewEvent) -> None:
            if events is not None:
                events(event)
            progress(event.message)

        self.context = ReviewContext(
            repo=repo,
            agents=ReviewAgents(reviewer, implementer, fresh_implementer),
            options=options,
            run_dir=run_dir,
            events=on_event,
            new_review_id=new_review_id,
        )

    @property
    def run_dir(self) -> Path:
        return self.context.run_dir

    def run(self) -> ReviewOutcome:
        """Run (or continue) the review to its end and return the outcome."""
        ctx = self.context
        state = self.state
        if state is None:
            state = start_review(ctx, run_id=self.run_id)
            self._checkpoint(state)
        next_ = decide(state, self.options)
        while not isinstance(next_, ReviewStop):
            result = run_step(ctx, state, next_)
            state = self.state = result.state
            self._checkpoint(state)
            next_ = result.stop or decide(state, self.options)
        return finish_review(ctx, state, next_)

    def _checkpoint(self, state: ReviewState) -> None:
        self.state = state
        directory = self.run_dir / STATE_DIR
        directory.mkdir(parents=True, exist_ok=True)
        number = len(list(directory.glob("*.json"))) + 1
        write_atomic(
            directory / f"{number:04d}.json", state.model_dump_json(indent=1), overwrite=False
        )


def load_state(run_dir: Path) -> ReviewState:
    """The last checkpoint of the run in `run_dir`; `UsageError` when there is none."""
    checkpoints = sorted((run_dir / STATE_DIR).glob("*.json"))
    if not checkpoints:
        raise UsageError(f"no review state to continue in {run_dir}")
    try:
        return ReviewState.model_validate_json(checkpoints[-1].read_bytes())
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the review state {checkpoints[-1]}: {exc}") from exc
