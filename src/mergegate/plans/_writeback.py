"""Write SUMMARY.md/VERIFICATION.md beside the plans, atomically, never over a file silently.

The only module of `mergegate.plans` that writes, and it writes through `mergegate.atomic_files`
(the one owner of durable files): each file appears whole or not at all. Every target is
checked before the first write, so a refused overwrite leaves the directory as it was; with
`replace=False` (the default) the final link into place is itself the check, so two writers
racing for one name cannot both win.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from mergegate.atomic_files import OverwriteRefusedError, write_atomic
from mergegate.plans._model import Phase, Unit
from mergegate.plans._reports import (
    PhaseVerification,
    UnitSummary,
    render_summary,
    render_verification,
)

__all__ = ["summary_name", "verification_name", "write_phase_reports"]


def summary_name(unit: Unit) -> str:
    """GSD's name for a unit's summary: its plan file's name with `SUMMARY` for `PLAN`."""
    if unit.source is not None and unit.source.file.endswith("PLAN.md"):
        return PurePosixPath(unit.source.file).name.removesuffix("PLAN.md") + "SUMMARY.md"
    return f"{unit.id}-SUMMARY.md"


def verification_name(phase: Phase) -> str:
    """GSD's name for a phase's verification report: `<phase-id>-VERIFICATION.md`."""
    prefix = PurePosixPath(phase.directory).name.split("-", 1)[0] if phase.directory else phase.id
    return f"{prefix}-VERIFICATION.md"


def write_phase_reports(
    directory: str | Path,
    phase: Phase,
    *,
    summaries: Sequence[tuple[Unit, UnitSummary]] = (),
    verification: PhaseVerification | None = None,
    replace: bool = False,
) -> tuple[Path, ...]:
    """Write the summaries and the verification report of `phase` into `directory`.

    Returns the paths written. Raises `OverwriteRefusedError` (exit 2) naming every file that
    already exists when `replace` is false, before writing anything.
    """
    target = Path(directory)
    files = [(target / summary_name(unit), render_summary(s)) for unit, s in summaries]
    if verification is not None:
        files.append((target / verification_name(phase), render_verification(verification)))
    names = [path.name for path, _ in files]
    if len(set(names)) != len(names):
        raise ValueError(f"two reports would share one file name: {sorted(names)}")
    existing = [path for path, _ in files if path.exists()]
    if existing and not replace:
        listed = ", ".join(str(path) for path in existing)
        raise OverwriteRefusedError(f"refusing to overwrite existing report(s): {listed}")
    for path, text in files:
        write_atomic(path, text, overwrite=replace)
    return tuple(path for path, _ in files)
