"""The run report is a model (`mergegate.engine.RunReport`) whose JSON form is the report's
public shape: reports recorded with the code that built it as a dict (`tests/data/run_reports/`,
`mergegate run --format json` output: a finished run with answers and a verification, one with
an alert, one without `metrics`) are printed back byte for byte, and a changed key fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from mergegate.cli.run import _emit
from mergegate.engine import CancelReport, RunCounts, RunReport

RECORDED = sorted((Path(__file__).parent / "data" / "run_reports").glob("*.json"))


def test_reports_were_recorded() -> None:
    assert len(RECORDED) == 3


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_a_recorded_report_round_trips_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    report = RunReport.model_validate_json(text)
    assert json.dumps(report.dump(), indent=2, ensure_ascii=False) == text


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_the_cli_prints_the_recorded_bytes(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = path.read_text(encoding="utf-8")
    _emit(RunReport.model_validate_json(text), "json")
    assert capsys.readouterr().out == text + "\n"


def _renamed(data: dict[str, object], old: str, new: str) -> dict[str, object]:
    return {(new if k == old else k): v for k, v in data.items()}


@pytest.mark.parametrize(("old", "new"), [("into", "integration"), ("next", "next_step")])
def test_a_changed_key_is_refused(old: str, new: str) -> None:
    data = json.loads(RECORDED[0].read_text(encoding="utf-8"))
    with pytest.raises(ValidationError):
        RunReport.model_validate(_renamed(data, old, new))


def test_a_changed_unit_key_is_refused() -> None:
    data = json.loads(RECORDED[0].read_text(encoding="utf-8"))
    data["units"][0] = _renamed(data["units"][0], "merge_commit", "merged")
    with pytest.raises(ValidationError):
        RunReport.model_validate(data)


def test_optional_fields_are_absent_not_null() -> None:
    """`metrics` (a run finished here), a fleet's `worker` and `orphaned`: absent unless set;
    `{}` for a stream that could not be read, as before."""
    path = next(p for p in RECORDED if p.stem == "no_metrics")
    report = RunReport.model_validate_json(path.read_text(encoding="utf-8"))
    dumped = report.dump()
    assert {"metrics", "worker", "orphaned"}.isdisjoint(dumped)
    assert all("worker" not in u for u in dumped["units"])
    report.worker, report.orphaned, report.units[0].worker = "", [], ""
    dumped = report.dump()
    assert (dumped["worker"], dumped["orphaned"], dumped["units"][0]["worker"]) == ("", [], "")
    assert list(dumped)[-2:] == ["worker", "orphaned"]
    empty = RunReport.model_validate({**report.dump(), "metrics": {}})
    assert empty.dump()["metrics"] == {}
    assert not isinstance(empty.metrics, RunCounts)


def test_cancel_adds_its_fields_last() -> None:
    report = RunReport.model_validate_json(RECORDED[0].read_text(encoding="utf-8"))
    cancelled = CancelReport(**dict(report), killed_groups=2, removed_worktrees=["/w"])
    dumped = cancelled.dump()
    assert list(dumped) == [*report.dump(), "killed_groups", "removed_worktrees"]
    assert dumped["killed_groups"] == 2
