"""The review gate and the revision loop (`mergegate review`), layer L3.

* `ReviewLoop` runs a review to its end (`loop`); the steps it runs, and the typed state they
  move along, are public for the run engine (`steps`, `state`, `context`).
* `ReviewOptions`, `ReviewAgents` and `report_root` turn configuration into a review (`options`);
  `review_config` reads it from the base revision, never from the change under review.
* The gate policy, the finding ledger, prompts, reports and progress events are their own
  modules.
"""

from __future__ import annotations

from mergegate.review._config import TrustedConfig, review_config
from mergegate.review.context import Repository, ReviewContext
from mergegate.review.events import EventKind, ReviewEvent
from mergegate.review.ledger import FindingLedger, FindingRecord, FindingStatus, LedgerState
from mergegate.review.loop import ReviewLoop, load_state
from mergegate.review.options import ReviewAgents, ReviewOptions, report_root
from mergegate.review.policy import GatePolicy, StageGate, gate_stage
from mergegate.review.prompts import PromptTemplate, RenderedPrompt, load_template
from mergegate.review.state import (
    AttemptSummary,
    FixSummary,
    ReviewOutcome,
    ReviewState,
    ReviewStatus,
    ReviewStop,
    RoundSummary,
    StageProgress,
    StageResult,
    UsageTotal,
)
from mergegate.review.steps import (
    FixRound,
    ReviewAttempt,
    StepResult,
    decide,
    finish_review,
    fix_round,
    review_attempt,
    run_step,
    start_review,
)

__all__ = [
    "AttemptSummary",
    "EventKind",
    "FindingLedger",
    "FindingRecord",
    "FindingStatus",
    "FixRound",
    "FixSummary",
    "GatePolicy",
    "LedgerState",
    "PromptTemplate",
    "RenderedPrompt",
    "Repository",
    "ReviewAgents",
    "ReviewAttempt",
    "ReviewContext",
    "ReviewEvent",
    "ReviewLoop",
    "ReviewOptions",
    "ReviewOutcome",
    "ReviewState",
    "ReviewStatus",
    "ReviewStop",
    "RoundSummary",
    "StageGate",
    "StageProgress",
    "StageResult",
    "StepResult",
    "TrustedConfig",
    "UsageTotal",
    "decide",
    "finish_review",
    "fix_round",
    "gate_stage",
    "load_state",
    "load_template",
    "report_root",
    "review_attempt",
    "review_config",
    "run_step",
    "start_review",
]
