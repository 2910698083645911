"""Which phase `mergegate verify` checks when none is named (seed 004: "Determine target
phase (arg or current)").

In order: the phase GSD's `STATE.md` names as the current position (`Phase: 14.1 of 16 …`,
or `current_phase:` in its frontmatter) when the plan has it; else the first phase, in plan
order, that has units and no passing verification yet (its `VERIFICATION.md` status is not
`passed` or `complete_with_gaps`); else the last phase. The reason is returned with the
phase, so the CLI can say which it picked and why.
"""

from __future__ import annotations

import re
from pathlib import Path

from mergegate.plans import Phase, Plan

__all__ = ["current_phase"]

_STATE_LINE = re.compile(
    r"^[ \t]*(?:\*\*)?(?:current[_ ])?phase(?:\*\*)?:[ \t]*(?:\*\*)?[ \t]*([\w.]+)", re.I | re.M
)
_DONE = frozenset({"passed", "complete_with_gaps"})
_MAX_STATE = 200_000


def _normal(phase_id: str) -> str:
    return ".".join(p.lstrip("0") or "0" if p.isdigit() else p.lower() for p in phase_id.split("."))


def _from_state(plan: Plan, plan_root: Path) -> tuple[Phase, str] | None:
    for name in (".planning/STATE.md", "STATE.md", ".paul/STATE.md"):
        path = plan_root / name
        try:
            text = path.read_text("utf-8", "replace")[:_MAX_STATE] if path.is_file() else ""
        except OSError:
            continue
        for match in _STATE_LINE.finditer(text):
            wanted = _normal(match.group(1))
            for phase in plan.phases:
                if _normal(phase.id) == wanted:
                    line = text.count("\n", 0, match.start()) + 1
                    return phase, f"the current phase in {name}:{line}"
    return None


def current_phase(plan: Plan, plan_root: Path) -> tuple[Phase, str]:
    """The phase to verify when none is named, and why (for the user)."""
    if len(plan.phases) == 1:
        return plan.phases[0], "the plan's only phase"
    found = _from_state(plan, plan_root)
    if found is not None:
        return found
    for phase in plan.phases:
        if phase.units and (phase.verification_status or "") not in _DONE:
            return phase, "the first phase not yet verified"
    if not plan.phases:
        raise ValueError("the plan has no phases")
    return plan.phases[-1], "every phase is verified: the last one"
