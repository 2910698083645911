"""`mergegate run` and its event stream: metrics from a scripted run against counts made by
hand, alerts and `--fail-on-alert`, the report, `stats`/`report` on a run id, and the journal
that writes each event once across crashes."""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _plan_runs import agent, approve, events, invoke, make_plan, repo_with, run_args, with_fixes
from mergegate.cli import cli
from mergegate.engine._context.journal import RunJournal, repair_tail
from mergegate.events import (
    EVENTS_FILE,
    Alert,
    Notice,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
    read_events,
)
from mergegate.metrics import AlertRules, compute_metrics


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


def stream_of(out: dict[str, Any]) -> Any:
    return read_events(Path(out["run_dir"]))


def test_metrics_of_a_scripted_run_match_the_counts_made_by_hand(
    repo: Path, tmp_path: Path
) -> None:
    # A: two tasks; its T1's first review asks for a fix (spec stage), the second approves.
    # B: one task whose check fails until the implementer's fix writes "fixed".
    plan = make_plan(
        {"P1": {"A": {"tasks": ["T1", "T2"]}, "B": {"checks": {"T1": ["grep -q fixed B-T1.txt"]}}}}
    )
    impl = agent(tmp_path, "impl")
    rev = agent(tmp_path, "rev", {"A/T1": {"review": [with_fixes("Missing test"), approve()]}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    stream = stream_of(out)
    metrics = compute_metrics(stream.events)
    # by hand, from the plan and the scripts:
    # tasks: A/T1, A/T2, B/T1
    assert metrics.tasks == 3
    # the implementer: once per task; fixes are the `fixer`: B/T1's failing check, A/T1's
    # review round 1
    roles = {role: u.attempts for role, u in metrics.usage_by_role.items()}
    # the reviewer: spec and quality in round 1 of each task (6), and round 2 of A/T1 re-runs
    # only the stage that did not pass (spec)
    assert roles == {"implementer": 3, "fixer": 2, "reviewer": 7}
    # ... which is exactly what the scripted agents were called for
    calls = [e for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert len(calls) == roles["implementer"] + roles["fixer"]
    reviews = [e for e in events(tmp_path, "rev") if e["event"] == "start"]
    assert len(reviews) == roles["reviewer"]
    assert metrics.fix_rounds == 2
    assert metrics.fix_rounds_by_task == {
        f"{out['run_id']}/P1/A/T1": 1,
        f"{out['run_id']}/P1/B/T1": 1,
    }
    # first pass: B/T1 and A/T2 approved in round 1, A/T1 needed a second
    assert (metrics.reviews, metrics.first_pass_approved) == (3, 2)
    assert metrics.first_pass_approval_rate == pytest.approx(2 / 3)
    assert metrics.verdicts == {"approve": 6, "fixes": 1}
    # checks run whenever the head moved: B/T1's failed, then passed after its fix; A/T2's
    # passed; A/T1's passed, and again after the review's fix moved the head
    assert (metrics.checks_passed, metrics.checks_failed) == (4, 1)
    assert (metrics.merges, metrics.conflicts, metrics.escalations) == (2, 0, 0)
    assert metrics.verifications == {"passed": 1}
    assert metrics.components["implementer"].success_rate == 1.0
    assert metrics.components["reviewer"].operations == 7
    assert [r.status for r in metrics.runs] == ["completed"]
    # the run printed the same numbers, and every event id is in the stream once
    assert out["metrics"]["tasks"] == 3
    assert out["metrics"]["agent_attempts"] == 12
    assert out["metrics"]["fix_rounds"] == 2
    assert out["alerts"] == []
    assert stream.replayed == 0
    kinds = [e.kind for e in stream.events]
    assert kinds[0] == "run.started"
    assert kinds[-1] == "run.finished"
    for kind in ("phase.started", "wave", "unit.started", "unit.merged", "unit.finished"):
        assert kind in kinds
    assert kinds.count("task.started") == kinds.count("task.finished") == 3
    assert not [e for e in stream.events if isinstance(e, Notice)]  # no record unreadable
    # every task-level event names its phase, so a task is one key
    assert {(e.phase, e.unit, e.task) for e in stream.events if e.task} == {
        ("P1", "A", "T1"),
        ("P1", "A", "T2"),
        ("P1", "B", "T1"),
    }


def test_two_units_with_tasks_of_the_same_id_keep_their_own_events(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    code, out, err = invoke(
        run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev")), plan, tmp_path
    )
    assert code == 0, err
    assert out is not None
    metrics = compute_metrics(stream_of(out).events)
    assert metrics.tasks == 2
    assert metrics.usage_by_role["reviewer"].attempts == 4  # spec and quality, twice
    assert metrics.reviews == 2


def _slow_run(repo: Path, tmp_path: Path, sleep: float, *extra: str) -> tuple[int, dict[str, Any]]:
    tmp_path.mkdir(exist_ok=True)
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, f"impl-{sleep}", {"*": {"implement": [{"sleep": sleep}]}})
    rev = agent(tmp_path, f"rev-{sleep}")
    code, out, err = invoke(run_args(repo, impl, rev, *extra), plan, tmp_path)
    assert out is not None, err
    return code, out


def test_fail_on_alert_changes_the_exit_code_only_when_a_threshold_is_crossed(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one attempt of a component longer than `component_seconds` is an alert
    monkeypatch.setenv("MERGEGATE_ALERTS__COMPONENT_SECONDS", "1.5")
    code, out = _slow_run(repo, tmp_path, 2.0, "--fail-on-alert")
    assert out["status"] == "completed"  # everything merged ...
    assert code == 5  # ... and the alert makes it a person's business
    assert [(a["rule"], a["component"]) for a in out["alerts"]] == [
        ("component_timeout", "implementer")
    ]
    assert "took" in out["alerts"][0]["message"] or "s" in out["alerts"][0]["message"]
    # the alert is in the stream once, next to the attempt that crossed it
    alerts = [e for e in stream_of(out).events if isinstance(e, Alert)]
    assert len(alerts) == 1
    assert (alerts[0].unit, alerts[0].task) == ("A", "T1")
    summary = (Path(out["run_dir"]) / "SUMMARY.md").read_text()
    assert "## Alerts (1)" in summary
    assert "component_timeout" in summary

    # the same run without the flag: listed, and exit 0
    code, out = _slow_run(repo_with(tmp_path / "repo2"), tmp_path / "b", 2.0)
    assert code == 0
    assert len(out["alerts"]) == 1

    # under the threshold: no alert, and the flag changes nothing
    code, out = _slow_run(repo_with(tmp_path / "repo3"), tmp_path / "c", 0.0, "--fail-on-alert")
    assert code == 0
    assert out["alerts"] == []
    assert "Alerts: none." in (Path(out["run_dir"]) / "SUMMARY.md").read_text()


def test_fail_on_alert_from_the_config_and_the_flag_that_turns_it_off(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_ALERTS__COMPONENT_SECONDS", "1.5")
    monkeypatch.setenv("MERGEGATE_ALERTS__FAIL_ON_ALERT", "true")
    code, out = _slow_run(repo, tmp_path, 2.0)
    assert (code, len(out["alerts"])) == (5, 1)
    code, out = _slow_run(repo_with(tmp_path / "r2"), tmp_path / "b", 2.0, "--no-fail-on-alert")
    assert (code, len(out["alerts"])) == (0, 1)


def test_the_run_writes_its_report_and_stats_and_report_read_the_run_id(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    rev = agent(tmp_path, "rev", {"A/T1": {"review": [with_fixes("<script>alert(1)</script>")]}})
    code, out, err = invoke(
        run_args(repo, agent(tmp_path, "impl"), rev, "--max-rounds", "2"), plan, tmp_path
    )
    assert code == 5, err  # the finding stays: escalated
    assert out is not None
    page = Path(out["report"])
    assert page == Path(out["run_dir"]) / "report.html"
    html = page.read_text()
    # self-contained: the strict policy, no script, nothing fetched from anywhere
    assert "Content-Security-Policy" in html
    assert "default-src &#39;none&#39;" in html or "default-src 'none'" in html
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert re.findall(r'(?:src|href|action)\s*=\s*"(?!#)[^"]*"', html) == []  # only #anchors
    assert "url(" not in html
    # the escalation is counted once: the task's (not the review's too)
    metrics = compute_metrics(stream_of(out).events)
    assert metrics.escalations == 1
    assert out["metrics"]["escalations"] == 1
    # the text output prints the report's path
    runner = CliRunner()
    stats = runner.invoke(cli, ["stats", out["run_id"], "--format", "json"])
    assert stats.exit_code == 0, stats.output
    found = json.loads(stats.stdout)["metrics"]
    assert found["tasks"] == metrics.tasks == 1
    assert found["fix_rounds"] == metrics.fix_rounds
    again = tmp_path / "again.html"
    made = runner.invoke(cli, ["report", out["run_id"], "--output", str(again)])
    assert made.exit_code == 0, made.output
    assert made.stdout.strip() == str(again)
    assert again.is_file()
    status = runner.invoke(cli, ["status", out["run_id"], "--repo", str(repo)])
    assert f"report: {page}" in status.stdout


def test_text_output_lists_the_numbers_the_alerts_and_the_report(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_ALERTS__COMPONENT_SECONDS", "1.5")
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(make_plan({"P1": {"A": {}}}).model_dump_json(by_alias=True))
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 2.0}]}})
    args = run_args(repo, impl, agent(tmp_path, "rev"))
    args[args.index("json")] = "text"
    args[args.index("none")] = "plain"
    result = CliRunner().invoke(cli, [args[0], str(plan_file), *args[1:]])
    assert result.exit_code == 0, result.output
    assert "1 task(s), 3 agent attempt(s), 0 fix round(s), first-pass approval 100%" in (
        result.stdout
    )
    assert "alert component_timeout:" in result.stdout
    assert "report: " in result.stdout
    assert "alert (component_timeout)" in result.stderr  # shown live as it rose


# ---------------------------------------------------------------- the journal


def test_the_journal_writes_each_id_once_across_processes(tmp_path: Path) -> None:
    first = RunJournal(tmp_path, fsync=False)
    event = TaskStarted(run_id="r", event_id="r/A/T1/task.started", phase="P", unit="A", task="T1")
    first.emit(event)
    first.emit(event)  # a replay in the same process
    second = RunJournal(tmp_path, fsync=False)  # a resumed process
    second.emit(event.model_copy(update={"name": "replayed"}))
    second.emit(TaskStarted(run_id="r", event_id="r/B/T1/task.started", task="T1"))
    lines = (tmp_path / EVENTS_FILE).read_text().splitlines()
    assert [json.loads(line)["event_id"] for line in lines] == [
        "r/A/T1/task.started",
        "r/B/T1/task.started",
    ]


def test_a_torn_last_line_is_cut_before_the_next_append(tmp_path: Path) -> None:
    journal = RunJournal(tmp_path, fsync=False)
    journal.emit(TaskStarted(run_id="r", event_id="one", task="T1"))
    path = tmp_path / EVENTS_FILE
    with path.open("ab") as handle:
        handle.write(b'{"kind": "task.started", "event_id": "torn", "ta')  # a crash mid-write
    again = RunJournal(tmp_path, fsync=False)
    again.emit(TaskStarted(run_id="r", event_id="two", task="T2"))
    stream = read_events(path)
    assert [e.event_id for e in stream.events] == ["one", "two"]
    assert stream.torn == 0
    assert repair_tail(path) is False  # nothing left to cut


def test_a_resumed_journal_remembers_the_alerts_already_raised(tmp_path: Path) -> None:
    rules = AlertRules(component_seconds=1.0)
    first = RunJournal(tmp_path, rules, fsync=False)
    first.emit(_attempt(1, seconds=5.0))
    assert [a.rule for a in first.alerts] == ["component_timeout"]
    second = RunJournal(tmp_path, rules, fsync=False)
    second.emit(_attempt(1, seconds=5.0))  # the replay: dropped
    second.emit(_attempt(2, seconds=0.5))
    assert second.alerts == []
    alerts = [e for e in read_events(tmp_path).events if isinstance(e, Alert)]
    assert len(alerts) == 1


def test_a_resumed_journal_judges_rates_over_the_whole_run(tmp_path: Path) -> None:
    """Twenty implementer operations succeeded before the crash; one exhausted after it is
    1 of 21, under 5 %: no alert (the monitor counts what the file holds)."""

    def attempt(n: int, status: str) -> Any:
        return _attempt(n, status, operation="01-implementer", max_attempts=1)

    first = RunJournal(tmp_path, fsync=False)
    for n in range(20):
        first.emit(attempt(n, "ok"))
    resumed = RunJournal(tmp_path, fsync=False)
    resumed.emit(attempt(20, "error"))
    assert resumed.alerts == []
    one_more = RunJournal(tmp_path / "fresh", fsync=False)
    one_more.emit(attempt(0, "error"))  # 1 of 1: over the threshold
    assert [a.rule for a in one_more.alerts] == ["retry_exhaustion"]


def test_a_merge_conflict_is_one_escalation_and_a_conflict(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    script = {
        "A/T1": {"implement": [{"write": {"same.txt": "from A\n"}}]},
        "B/T1": {"implement": [{"write": {"same.txt": "from B\n"}}]},
    }
    code, out, _ = invoke(
        run_args(repo, agent(tmp_path, "impl", script), agent(tmp_path, "rev")), plan, tmp_path
    )
    assert code == 5
    assert out is not None
    stream = stream_of(out)
    metrics = compute_metrics(stream.events)
    assert (metrics.merges, metrics.conflicts, metrics.escalations) == (1, 1, 1)
    escalated = [e for e in stream.events if e.kind == "unit.escalated"]
    assert [(e.unit, e.package) for e in escalated] == [("B", out["units"][1]["escalation"])]
    finished = {e.unit: e.status for e in stream.events if e.kind == "unit.finished"}
    assert finished == {"A": "merged", "B": "needs_manual_review"}
    assert [e.kind for e in stream.events][-1] == "run.finished"


def test_a_checkpoint_answered_in_a_later_generation_is_one_task(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "CP1"]}}})
    code, out, _ = invoke(
        run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev")), plan, tmp_path
    )
    assert code == 5
    assert out is not None
    base = ["--repo", str(repo), "--format", "json", "--progress", "none"]
    code, out, _ = invoke(["resume", out["run_id"], "--answer", "CP1=approve", *base])
    assert code == 0
    assert out is not None
    stream = stream_of(out)
    assert stream.replayed == 0
    metrics = compute_metrics(stream.events)
    assert metrics.tasks == 2
    assert metrics.usage_by_role["implementer"].attempts == 1  # T1 is not run again
    assert metrics.reviews == 1
    assert metrics.merges == 1
    ends = [(e.task, e.decision) for e in stream.events if isinstance(e, TaskFinished)]
    assert ends == [("T1", "approved"), ("CP1", "waiting_for_human"), ("CP1", "approved")]
    runs = [(e.generation, e.kind) for e in stream.events if isinstance(e, RunStarted)]
    assert runs == [(1, "run.started"), (2, "run.started")]
    statuses = [e.status for e in stream.events if isinstance(e, RunFinished)]
    assert statuses == ["waiting_for_human", "completed"]


def _attempt(
    n: int, status: str = "ok", seconds: float = 0.0, *, operation: str = "", max_attempts: int = 0
) -> Any:
    """Implementer attempt `n` of task `Tn` (event id `an`), as the run writes one."""
    from mergegate.events import AgentAttempt

    return AgentAttempt(
        run_id="r",
        phase="P",
        unit="A",
        task=f"T{n}",
        role="implementer",
        backend="command",
        status=status,
        operation=operation,
        max_attempts=max_attempts,
        duration_s=seconds,
        event_id=f"a{n}",
    )


@pytest.mark.parametrize("late", [0, 1, 3])
def test_the_end_of_a_run_reads_and_folds_its_stream_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, late: int
) -> None:
    """However many alerts the end of a run finds that were not raised live (`late` slow
    attempts written before a process with stricter rules opened the stream), it reads the
    stream once and evaluates the rules once; the alerts it returns and writes are those a
    fresh reader finds in the stream it leaves, and its report is the page a fresh reader
    renders from that stream (the same alerts and metrics)."""
    import mergegate.engine._context.journal as journal_module
    from mergegate.engine._context.journal import close_stream
    from mergegate.report import render_report

    earlier = RunJournal(tmp_path, fsync=False)  # default rules: 5 s attempts raise nothing
    for n in range(late):
        earlier.emit(_attempt(n, seconds=5.0))
    earlier.emit(_attempt(99, seconds=0.5))
    rules = AlertRules(component_seconds=1.0)
    journal = RunJournal(tmp_path, rules, fsync=False)  # folds them in, raises nothing
    assert journal.alerts == []
    from mergegate.metrics._alerts import AlertMonitor
    from mergegate.metrics._compute import _Folder

    reads: list[object] = []
    folds: collections.Counter[str] = collections.Counter()
    real_read = journal_module.read_events

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            folds[name] += 1
            return real(*args, **kwargs)

        return call

    def read(*args: Any, **kwargs: Any) -> Any:
        reads.append(args)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(journal_module, "read_events", read)
    monkeypatch.setattr(AlertMonitor, "check_run", counted("alerts", AlertMonitor.check_run))
    monkeypatch.setattr(_Folder, "result", counted("metrics", _Folder.result))
    end = close_stream(tmp_path, rules, journal)
    assert (len(reads), folds["alerts"], folds["metrics"], end.error) == (1, 1, 1, "")
    monkeypatch.undo()
    left = read_events(tmp_path)
    written = [e for e in left.events if isinstance(e, Alert)]
    assert [(a.rule, a.task) for a in end.alerts] == [(a.rule, a.task) for a in written]
    assert len(written) == min(late, 1)  # one alert per rule and component
    assert end.metrics.tasks == compute_metrics(left.events).tasks
    assert end.report is not None
    fresh = render_report(left, rules=rules)
    stamp = re.compile(r" at [^.]*\. Self-contained")
    assert stamp.sub("", end.report.read_text()) == stamp.sub("", fresh)
    # closed again (a resumed run's end): nothing more is found or written
    again = close_stream(tmp_path, rules, RunJournal(tmp_path, rules, fsync=False))
    assert [a.event_id for a in again.alerts] == [a.event_id for a in written]
    assert len([e for e in read_events(tmp_path).events if isinstance(e, Alert)]) == min(late, 1)
