"""Plans: one typed model of phases, units and tasks, read from the formats agents already write.

Layer L1: pure values (importers read files but decide nothing about the world).
"""

from __future__ import annotations

from mergegate.plans._model import (
    AcceptanceCriterion,
    Artifact,
    Check,
    KeyLink,
    MustHaves,
    Phase,
    Plan,
    PlanFormat,
    SourceRef,
    Task,
    Unit,
    Verify,
)

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
