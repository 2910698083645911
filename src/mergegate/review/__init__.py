"""The review gate and the revision loop (`mergegate review`), layer L3."""

from __future__ import annotations

from mergegate.review.events import EventKind, ReviewEvent
from mergegate.review.ledger import FindingLedger, FindingRecord, FindingStatus
from mergegate.review.loop import (
    AttemptSummary,
    Repository,
    ReviewLoop,
    ReviewOutcome,
    ReviewStatus,
    RoundSummary,
)
from mergegate.review.options import ReviewAgents, ReviewOptions, report_root
from mergegate.review.policy import GatePolicy, StageGate, gate_stage
from mergegate.review.prompts import PromptTemplate, RenderedPrompt, load_template

__all__ = [
    "AttemptSummary",
    "EventKind",
    "FindingLedger",
    "FindingRecord",
    "FindingStatus",
    "GatePolicy",
    "PromptTemplate",
    "RenderedPrompt",
    "Repository",
    "ReviewAgents",
    "ReviewEvent",
    "ReviewLoop",
    "ReviewOptions",
    "ReviewOutcome",
    "ReviewStatus",
    "RoundSummary",
    "StageGate",
    "gate_stage",
    "load_template",
    "report_root",
]
