"""Plans: one typed model of phases, units and tasks, read from the formats agents already write.

`load_plan(path)` imports a GSD-family planning tree (`.planning/`, `.paul/`), a superpowers
plan, a spectacular plan (single or split) or a native mergegate plan (YAML) into one `Plan`;
`read_plan(path)` is the plan a command acts on (those formats or the plan model as JSON, its
errors refused, other phases' set aside) and `find_phase` picks one of its phases;
`check_plan` lints it; `require_runnable` (run) and `require_valid` (verify) are the one gate
commands pass a plan through (`plan_errors` lists what they would refuse); `unit_waves`
gives the order its units run in; `dump_native` writes it back as a native file.
`render_summary`/`render_verification` produce GSD-compatible reports and
`write_phase_reports` puts them beside the plans, so GSD and mergegate can take turns.

Layer L1: pure values and text. The importers read files and the one write-back function
writes through `mergegate.atomic_files`; nothing here starts a process or decides about the world.
"""

from __future__ import annotations

from mergegate.plans._check import check_plan, plan_errors, require_runnable, require_valid
from mergegate.plans._detect import load_plan
from mergegate.plans._errors import PlanError
from mergegate.plans._model import (
    AcceptanceCriterion,
    Artifact,
    Check,
    FileChange,
    ImportResult,
    KeyLink,
    MustHaves,
    Phase,
    Plan,
    PlanFormat,
    PlanIssue,
    Severity,
    SourceRef,
    Step,
    Task,
    Unit,
    Verify,
)
from mergegate.plans._native import dump_native, read_native
from mergegate.plans._order import CycleError, unit_waves, wave_conflicts
from mergegate.plans._read import LoadedPlan, find_phase, read_plan
from mergegate.plans._reports import (
    CommandResult,
    Gap,
    GapArtifact,
    HumanCheck,
    PhaseVerification,
    TaskRecord,
    TruthResult,
    UnitSummary,
    render_summary,
    render_verification,
)
from mergegate.plans._writeback import summary_name, verification_name, write_phase_reports

__all__ = [
    "AcceptanceCriterion",
    "Artifact",
    "Check",
    "CommandResult",
    "CycleError",
    "FileChange",
    "Gap",
    "GapArtifact",
    "HumanCheck",
    "ImportResult",
    "KeyLink",
    "LoadedPlan",
    "MustHaves",
    "Phase",
    "PhaseVerification",
    "Plan",
    "PlanError",
    "PlanFormat",
    "PlanIssue",
    "Severity",
    "SourceRef",
    "Step",
    "Task",
    "TaskRecord",
    "TruthResult",
    "Unit",
    "UnitSummary",
    "Verify",
    "check_plan",
    "dump_native",
    "find_phase",
    "load_plan",
    "plan_errors",
    "read_native",
    "read_plan",
    "render_summary",
    "render_verification",
    "require_runnable",
    "require_valid",
    "summary_name",
    "unit_waves",
    "verification_name",
    "wave_conflicts",
    "write_phase_reports",
]
