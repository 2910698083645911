"""SUMMARY.md / VERIFICATION.md written back beside the plans: GSD's shape, atomic, no clobber."""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from mergegate.atomic_files import OverwriteRefusedError
from mergegate.plans import (
    CommandResult,
    Gap,
    GapArtifact,
    HumanCheck,
    PhaseVerification,
    TaskRecord,
    TruthResult,
    UnitSummary,
    load_plan,
    render_summary,
    render_verification,
    summary_name,
    verification_name,
    write_phase_reports,
)

WHEN = datetime.datetime(2026, 5, 7, 12, 30, tzinfo=datetime.UTC)


def front(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    data: dict[str, Any] = yaml.safe_load(text[4 : text.index("\n---\n", 4)])
    return data


def summary(**changes: Any) -> UnitSummary:
    values: dict[str, Any] = {
        "phase": "04-project-detection",
        "plan": "02",
        "one_liner": "Project badges | grouped list",
        "started": WHEN - datetime.timedelta(minutes=3, seconds=5),
        "completed": WHEN,
        "tags": ("go", "tui"),
        "files_created": ("internal/tui/badges.go",),
        "files_modified": ("internal/tui/model.go",),
        "decisions": ("Badges inline, not headers",),
        "requirements_completed": ("PROJ-02",),
        "tasks": (TaskRecord(name="Task 1: Badges", commit="abc1234", kind="feat"),),
    }
    values.update(changes)
    return UnitSummary(**values)


def passed() -> PhaseVerification:
    return PhaseVerification(
        phase="04-project-detection",
        verified=WHEN,
        status="passed",
        goal="Servers organize by project",
        truths=(TruthResult(truth="Badges show", status="verified", evidence="badges.go:12"),),
        commands=(CommandResult(command="go test ./...", exit_code=0),),
    )


def test_summary_has_gsd_frontmatter_and_sections() -> None:
    text = render_summary(summary())
    data = front(text)
    assert data["phase"] == "04-project-detection"
    assert data["plan"] == "02"  # text, as GSD writes it
    assert data["key-files"] == {
        "created": ["internal/tui/badges.go"],
        "modified": ["internal/tui/model.go"],
    }
    assert data["tech-stack"] == {"added": [], "patterns": []}
    assert data["requirements-completed"] == ["PROJ-02"]
    assert (data["completed"], data["duration"], data["generator"]) == (
        "2026-05-07",
        "3min 5s",
        "mergegate",
    )
    assert "**Project badges | grouped list**" in text
    assert "1. **Task 1: Badges** - `abc1234` (feat)" in text
    assert "## Deviations from Plan" in text


def test_verification_has_gsd_frontmatter() -> None:
    data = front(render_verification(passed()))
    assert data == {
        "phase": "04-project-detection",
        "verified": "2026-05-07T12:30:00Z",
        "status": "passed",
        "score": "1/1 must-haves verified",
        "generator": "mergegate",
    }
    gaps = PhaseVerification(
        phase="73-x",
        verified=WHEN,
        status="gaps_found",
        truths=(
            TruthResult(truth="a", status="verified"),
            TruthResult(truth="tests | pass", status="failed", evidence="exit 1"),
        ),
        gaps=(
            Gap(
                truth="tests | pass",
                status="failed",
                reason="missing dep",
                artifacts=(GapArtifact(path="src/p.tsx", issue="import fails"),),
                missing=("npm install",),
            ),
        ),
        human_verification=(HumanCheck(test="click", expected="panel hides", why_human="visual"),),
    )
    text = render_verification(gaps)
    data = front(text)
    assert data["status"] == "gaps_found"
    assert data["score"] == "1/2 must-haves verified"
    assert data["gaps"][0]["artifacts"] == [{"path": "src/p.tsx", "issue": "import fails"}]
    assert data["human_verification"] == [
        {"test": "click", "expected": "panel hides", "why_human": "visual"}
    ]
    assert "| 2 | tests \\| pass | FAILED | exit 1 |" in text


@pytest.mark.parametrize(
    "changes",
    [
        {"truths": ()},
        {"truths": (TruthResult(truth="x", status="partial"),)},
        {"human_verification": (HumanCheck(test="t", expected="e", why_human="w"),)},
        {"commands": (CommandResult(command="make test", exit_code=2),)},
        {"status": "gaps_found"},
        {"status": "human_needed"},
    ],
)
def test_a_report_cannot_claim_more_than_its_evidence(changes: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        PhaseVerification(**{**passed().model_dump(), **changes})


def gsd_tree(shared_dir: Path, tmp_path: Path) -> Path:
    source = shared_dir / "corpus" / "plans" / "gsd" / "Sh3rd3n__megazord" / ".planning"
    copy = tmp_path / "repo" / ".planning"
    shutil.copytree(source, copy)
    copy.chmod(0o755)
    for path in copy.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return copy


def test_write_back_lets_gsd_and_mergegate_take_turns(shared_dir: Path, tmp_path: Path) -> None:
    root = gsd_tree(shared_dir, tmp_path)
    plan = load_plan(root).plan
    phase = next(p for p in plan.phases if p.id == "15")
    pending = next(u for u in phase.units if not u.completed)
    assert (pending.id, phase.verification_status) == ("15-03", None)
    assert (summary_name(pending), verification_name(phase)) == (
        "15-03-SUMMARY.md",
        "15-VERIFICATION.md",
    )
    assert phase.directory is not None
    report = passed().model_copy(update={"phase": "15-npm-publication"})
    written = write_phase_reports(
        root / phase.directory,
        phase,
        summaries=[(pending, summary(phase="15-npm-publication", plan="03"))],
        verification=report,
    )
    assert [p.name for p in written] == ["15-03-SUMMARY.md", "15-VERIFICATION.md"]
    again = next(p for p in load_plan(root).plan.phases if p.id == "15")
    assert all(u.completed for u in again.units)  # exactly what GSD reads: the SUMMARY exists
    assert again.verification_status == "passed"
    assert not list((root / phase.directory).glob(".*.tmp"))  # nothing half-written left


def test_existing_reports_are_never_overwritten_silently(shared_dir: Path, tmp_path: Path) -> None:
    root = gsd_tree(shared_dir, tmp_path)
    plan = load_plan(root).plan
    phase = next(p for p in plan.phases if p.id == "14.1")
    assert phase.directory is not None
    directory = root / phase.directory
    done = phase.units[0]
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    new = next(u for u in phase.units if u is not done)
    with pytest.raises(OverwriteRefusedError, match=summary_name(done)):
        write_phase_reports(
            directory,
            phase,
            summaries=[(new, summary(plan="99")), (done, summary())],
            verification=passed(),
        )
    # Refused before the first write: not even the new unit's summary or the report appeared.
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before
    written = write_phase_reports(directory, phase, summaries=[(done, summary())], replace=True)
    assert written == (directory / summary_name(done),)
    assert front(written[0].read_text(encoding="utf-8"))["generator"] == "mergegate"
