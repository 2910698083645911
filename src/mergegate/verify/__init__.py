"""Verification: a phase's deliverables checked against its criteria by checks mergegate runs.

A criterion passes only on evidence a program produced (or, for words no program can test,
on the verifier agent's word, shown apart, or a person's); a criterion nothing could check is
a question for a person, never a pass; a phase where no program check ran is not verified.

* `derive_checks(plan, phase)` — pure: every criterion and the checks derived from it
  (`--dry-run`).
* `verify_phase(plan, phase_id, repo_dir, run_dir=..., verifier=..., options=...)` — runs the
  checks, asks the verifier agent once, decides, writes `VERIFICATION.md` + JSON twin.
* `reverify(previous, run_dir=..., answers=..., acceptance=...)` — applies people's answers
  (or a gap acceptance) to an earlier result without running anything again.
* `load_answers` / `record_answer` — the append-only ledger of people's answers.

Layer L3, beside `mergegate.review`. See `docs/verify.md`.
"""

from __future__ import annotations

from mergegate.verify._criteria import derive_checks, find_phase, fingerprint
from mergegate.verify._current import current_phase
from mergegate.verify._model import (
    Answer,
    CheckKind,
    CheckSpec,
    Counts,
    Criterion,
    CriterionChecks,
    CriterionKind,
    CriterionResult,
    Evidence,
    GapAcceptance,
    Outcome,
    Result,
    VerificationResult,
    VerificationStatus,
    VerifierRun,
)
from mergegate.verify._paths import PlanPathError
from mergegate.verify._phase import VerifyOptions, answers_for, reverify, verify_phase
from mergegate.verify._records import (
    PhaseDir,
    find_gsd_report,
    gsd_phase_dir,
    latest_result,
    load_answers,
    phase_state_dir,
    record_answer,
    render_markdown,
)
from mergegate.verify._repo import tree_state
from mergegate.verify._runner import ALLOWED_ENV, command_environment

__all__ = [
    "ALLOWED_ENV",
    "Answer",
    "CheckKind",
    "CheckSpec",
    "Counts",
    "Criterion",
    "CriterionChecks",
    "CriterionKind",
    "CriterionResult",
    "Evidence",
    "GapAcceptance",
    "Outcome",
    "PhaseDir",
    "PlanPathError",
    "Result",
    "VerificationResult",
    "VerificationStatus",
    "VerifierRun",
    "VerifyOptions",
    "answers_for",
    "command_environment",
    "current_phase",
    "derive_checks",
    "find_gsd_report",
    "find_phase",
    "fingerprint",
    "gsd_phase_dir",
    "latest_result",
    "load_answers",
    "phase_state_dir",
    "record_answer",
    "render_markdown",
    "reverify",
    "tree_state",
    "verify_phase",
]
