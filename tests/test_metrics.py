"""Metrics from a scripted run match numbers counted by hand, and from a real review's records."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import change_repo
from _verdict_object import finding as object_finding
from _verdict_object import verdict_object
from mergegate.cli import cli
from mergegate.events import (
    AgentAttempt,
    EventBase,
    FindingRef,
    FixRound,
    HandoffAttempt,
    HandoffFinished,
    HelpAdvice,
    HelpRequested,
    ReviewFinished,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
    VerdictEvent,
)
from mergegate.metrics import compute_metrics
from mergegate.review.stream import review_events

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def tick(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


def scripted_run() -> list[EventBase]:
    """A plan run of four tasks in two phases, written out step by step.

    T1 (phase 01, unit a): implemented, both stages approve in round 1; its handoff valid at once.
    T2 (phase 01, unit a): implemented after a help request (advice ok); spec review malformed,
        then fixes (finding F-1); a fix round; round 2 approves; handoff valid on attempt 3.
    T3 (phase 01, unit b): the implementer times out; the task fails.
    T4 (phase 02, unit c): spec review empty, then malformed: 2 of 2 attempts spent
        (exhausted); the review is undecidable; the handoff escalates after 6 attempts.
    """
    c = Clock()
    ev: list[EventBase] = [RunStarted(run_id="r1", at=T0, plan="demo")]

    def impl(
        phase: str,
        unit: str,
        task: str,
        *,
        status: str = "ok",
        secs: float = 10.0,
        tin: int = 100,
        tout: int = 50,
        cost: float | None = 0.1,
    ) -> None:
        start = c.now
        ev.append(
            AgentAttempt(
                run_id="r1",
                phase=phase,
                unit=unit,
                task=task,
                role="implementer",
                backend="claude",
                status=status,
                started_at=start,
                at=c.tick(secs),
                duration_s=secs,
                tokens_in=tin,
                tokens_out=tout,
                cost_usd=cost,
                timed_out=status == "timeout",
            )
        )

    def review(  # noqa: PLR0917 - positional so the script below reads as a table
        phase: str,
        unit: str,
        task: str,
        rnd: int,
        stage: str,
        attempt: int,
        decision: str,
        findings: tuple[str, ...] = (),
    ) -> None:
        start = c.now
        at = c.tick(5)
        where = {
            "run_id": "r1",
            "phase": phase,
            "unit": unit,
            "task": task,
            "round": rnd,
            "stage": stage,
            "attempt": attempt,
            "max_attempts": 2,
        }
        ev.append(
            AgentAttempt(
                **where,
                role="reviewer",
                backend="local",
                status="ok",
                started_at=start,
                at=at,
                duration_s=5.0,
                tokens_in=200,
                tokens_out=20,
            )
        )
        refs = [FindingRef(id=f, severity="important", title=f"finding {f}") for f in findings]
        ev.append(VerdictEvent(**where, decision=decision, at=at, findings=refs))

    def handoff(phase: str, unit: str, task: str, errors: list[str], final: str) -> None:
        where = {
            "run_id": "r1",
            "phase": phase,
            "unit": unit,
            "task": task,
            "handoff_type": "agent-result",
            "session_id": f"s-{task}",
        }
        for n, error in enumerate(errors, start=1):
            ev.append(
                HandoffAttempt(
                    **where,
                    attempt=n,
                    result="failure",
                    error_type=error,
                    at=c.tick(1),
                    duration_s=1.0,
                )
            )
        if final == "recovered":
            ev.append(
                HandoffAttempt(
                    **where, attempt=len(errors) + 1, result="success", at=c.tick(1), duration_s=1.0
                )
            )
        attempts = len(errors) + (final == "recovered")
        ev.append(HandoffFinished(**where, final_status=final, attempts=attempts, at=c.now))

    ev.append(TaskStarted(run_id="r1", phase="01", unit="a", task="T1", at=c.now))
    impl("01", "a", "T1")
    handoff("01", "a", "T1", [], "recovered")
    review("01", "a", "T1", 1, "spec", 1, "approve")
    review("01", "a", "T1", 1, "quality", 1, "approve")
    ev.append(
        ReviewFinished(
            run_id="r1",
            phase="01",
            unit="a",
            task="T1",
            status="approved",
            decision="approve",
            rounds=1,
            at=c.now,
        )
    )
    ev.append(
        TaskFinished(run_id="r1", phase="01", unit="a", task="T1", decision="approved", at=c.now)
    )

    ev.append(TaskStarted(run_id="r1", phase="01", unit="a", task="T2", at=c.now))
    ev.append(HelpRequested(run_id="r1", phase="01", unit="a", task="T2", at=c.now))
    ev.append(
        HelpAdvice(
            run_id="r1",
            phase="01",
            unit="a",
            task="T2",
            advisor="local",
            status="ok",
            action="continue",
            at=c.tick(2),
        )
    )
    impl("01", "a", "T2", tin=300, tout=100, cost=0.3)
    handoff("01", "a", "T2", ["json_syntax", "schema"], "recovered")
    review("01", "a", "T2", 1, "spec", 1, "malformed")
    review("01", "a", "T2", 1, "spec", 2, "fixes", ("F-1",))
    impl_fix_start = c.now
    ev.append(
        AgentAttempt(
            run_id="r1",
            phase="01",
            unit="a",
            task="T2",
            role="fixer",
            backend="claude",
            status="ok",
            round=1,
            stage="fix",
            started_at=impl_fix_start,
            at=c.tick(8),
            duration_s=8.0,
            tokens_in=50,
            tokens_out=25,
            cost_usd=0.05,
        )
    )
    ev.append(
        FixRound(
            run_id="r1",
            phase="01",
            unit="a",
            task="T2",
            round=1,
            findings=("F-1",),
            commit="abc",
            at=c.now,
        )
    )
    review("01", "a", "T2", 2, "spec", 1, "approve")
    ev.append(
        ReviewFinished(
            run_id="r1",
            phase="01",
            unit="a",
            task="T2",
            status="approved",
            decision="approve",
            rounds=2,
            at=c.now,
        )
    )

    ev.append(TaskStarted(run_id="r1", phase="01", unit="b", task="T3", at=c.now))
    impl("01", "b", "T3", status="timeout", secs=60.0, tin=0, tout=0, cost=None)
    ev.append(
        TaskFinished(run_id="r1", phase="01", unit="b", task="T3", decision="failed", at=c.now)
    )

    ev.append(TaskStarted(run_id="r1", phase="02", unit="c", task="T4", at=c.now))
    impl("02", "c", "T4")
    handoff(
        "02",
        "c",
        "T4",
        ["empty", "json_syntax", "json_syntax", "json_syntax", "schema", "schema"],
        "escalated",
    )
    review("02", "c", "T4", 1, "spec", 1, "empty")
    review("02", "c", "T4", 1, "spec", 2, "malformed")
    ev.append(
        ReviewFinished(
            run_id="r1",
            phase="02",
            unit="c",
            task="T4",
            status="undecidable",
            decision="malformed",
            rounds=1,
            at=c.now,
        )
    )
    ev.append(RunFinished(run_id="r1", status="failed", exit_code=3, at=c.tick(1)))
    return ev


def test_component_numbers_match_a_hand_count() -> None:
    m = compute_metrics(scripted_run())
    assert list(m.components) == [
        "implementer",
        "reviewer",
        "fixer",
        "advisor",
        "handoff:agent-result",
    ]
    advisor = m.components["advisor"]  # the help request's advice, valid at once
    assert (advisor.operations, advisor.succeeded, advisor.attempts) == (1, 1, 1)

    impl = m.components["implementer"]
    # T1, T2, T3, T4: one attempt each; T3 timed out
    assert (impl.operations, impl.succeeded, impl.failed, impl.attempts) == (4, 3, 1, 4)
    assert impl.exhausted == 0  # no budget was given for implementer runs
    assert impl.timeouts == 1
    assert impl.failure_types == {"timeout": 1}
    assert impl.success_rate == 0.75
    assert impl.average_retries == 0.0
    assert impl.longest_s == 60.0

    rev = m.components["reviewer"]
    # operations: T1 spec, T1 quality, T2 r1 spec, T2 r2 spec, T4 spec
    assert (rev.operations, rev.succeeded, rev.failed, rev.exhausted) == (5, 4, 1, 1)
    assert rev.attempts == 1 + 1 + 2 + 1 + 2
    assert rev.retries_before_success == 1  # T2 round 1: malformed, then fixes
    assert rev.average_retries == 0.25
    assert rev.retry_exhaustion_rate == 0.2
    assert rev.failure_types == {"malformed": 2, "empty": 1}

    handoff = m.components["handoff:agent-result"]
    assert (handoff.operations, handoff.succeeded, handoff.exhausted) == (3, 2, 1)
    assert handoff.attempts == 1 + 3 + 6
    assert handoff.average_retries == 1.0  # (0 + 2) / 2
    assert handoff.failure_types == {"json_syntax": 4, "schema": 3, "empty": 1}
    assert round(handoff.retry_exhaustion_rate or 0, 4) == 0.3333


def test_run_level_numbers_match_a_hand_count() -> None:
    m = compute_metrics(scripted_run())
    assert m.tasks == 4
    assert m.fix_rounds == 1
    assert m.fix_rounds_per_task == 0.25
    assert m.fix_rounds_by_task == {"r1/01/a/T2": 1}
    assert (m.reviews, m.first_pass_approved) == (3, 1)  # T1 only; T2 took 2 rounds; T4 undecidable
    assert m.help_requests == 1
    assert m.implementer_attempts == 4
    assert m.help_request_rate == 0.25
    # approvals: T1 spec, T1 quality, T2 round 2 spec
    assert m.verdicts == {"approve": 3, "malformed": 2, "fixes": 1, "empty": 1}

    # tokens: implementers 100+50 (T1), 300+100 (T2), 0 (T3), 100+50 (T4); fixer 75;
    # reviewers 7 attempts x 220
    assert m.usage_by_role["implementer"].total_tokens == 150 + 400 + 0 + 150
    assert m.usage_by_role["fixer"].total_tokens == 75
    assert m.usage_by_role["reviewer"].total_tokens == 7 * 220
    assert m.usage.total_tokens == 700 + 75 + 1540
    assert m.usage_by_phase["r1/01"].total_tokens == 150 + 400 + 75 + 5 * 220
    assert m.usage_by_phase["r1/02"].total_tokens == 150 + 2 * 220
    assert m.usage_by_unit["r1/01/b"].total_tokens == 0
    assert m.usage_by_task["r1/01/a/T2"].tokens_in == 300 + 50 + 3 * 200
    assert m.usage.cost_usd == pytest.approx(0.1 + 0.3 + 0.1 + 0.05)
    assert m.usage.cost_known == 4  # the timed-out run and the reviewers reported none
    assert m.usage_by_backend["claude"].attempts == 5

    # agent time: implementers 10+10+60+10, fixer 8, reviewers 7 x 5
    assert m.usage.agent_s == pytest.approx(90 + 8 + 35)
    run = m.runs[0]
    assert (run.run_id, run.status, run.tasks, run.attempts) == ("r1", "failed", 4, 12)
    # wall time: from run.started to run.finished, every tick of the script counted
    ticks = 10 + 1 + 5 + 5 + 2 + 10 + 3 + 5 + 5 + 8 + 5 + 60 + 10 + 6 + 5 + 5 + 1
    assert run.wall_s == pytest.approx(ticks)
    assert m.wall_s == run.wall_s


def test_metrics_of_several_runs_add_up_and_keep_runs_apart() -> None:
    one = scripted_run()
    two = [e.model_copy(update={"run_id": "r2", "event_id": e.event_id + "-2"}) for e in one]
    m = compute_metrics([*one, *two])
    assert [r.run_id for r in m.runs] == ["r1", "r2"]
    assert m.components["reviewer"].operations == 10
    assert m.tasks == 8
    assert m.wall_s == pytest.approx(2 * m.runs[0].wall_s)


def test_a_verdict_judges_a_reviewer_run_that_went_fine_whatever_the_order() -> None:
    attempt = AgentAttempt(
        run_id="r", role="reviewer", backend="x", status="ok", round=1, stage="spec"
    )
    verdict = VerdictEvent(run_id="r", decision="malformed", round=1, stage="spec")
    for events in ([attempt, verdict], [verdict, attempt]):
        c = compute_metrics(events).components["reviewer"]
        assert (c.operations, c.succeeded, c.failure_types) == (1, 0, {"malformed": 1})


def test_an_empty_stream_has_no_rates() -> None:
    m = compute_metrics([])
    assert m.components == {}
    assert m.first_pass_approval_rate is None
    assert m.help_request_rate is None
    assert m.fix_rounds_per_task is None


# ---------------------------------------------------------------- a real review's records


def _agent(tmp_path: Path, name: str, steps: list[dict[str, Any]]) -> str:
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps(steps))
    return f"{sys.executable} {FAKE} {script} {tmp_path / (name + '-state')}"


def _trailer(verdict: str, findings: list[dict[str, Any]]) -> str:
    return verdict_object(verdict, findings)


def test_metrics_from_a_real_review_runs_records(tmp_path: Path) -> None:
    """`mergegate review` with a fix loop: malformed, then With fixes, a fix, then approve."""
    add = "def add(a, b):\n    return a + b\n"
    repo = change_repo(
        tmp_path / "repo", {"app.py": add}, {"app.py": add + "\ndef sub(a, b):\n    return a - b\n"}
    )
    finding = object_finding("F-1", title="No test for sub", line=3)
    reviewer = _agent(
        tmp_path,
        "rv",
        [
            {"text": "Looks fine to me."},
            {"text": _trailer("request_changes", [finding])},
            {"text": _trailer("approve", [])},
        ],
    )
    implementer = _agent(tmp_path, "impl", [{"text": "added", "write": {"app.py": add + "# t\n"}}])
    result = CliRunner().invoke(
        cli,
        [
            "review",
            "--repo",
            str(repo),
            "--base",
            "HEAD~1",
            "--report-dir",
            str(tmp_path / "reports"),
            "--format",
            "json",
            "--reviewer-cmd",
            reviewer,
            "--fix",
            "--implementer-cmd",
            implementer,
        ],
    )
    assert result.exit_code == 0, result.output
    run_dir = Path(json.loads(result.stdout)["report_dir"])

    events = review_events(run_dir)
    m = compute_metrics(events)
    rev = m.components["reviewer"]
    # round 1 quality: attempt 1 malformed, attempt 2 fixes; round 2 quality: approve
    assert (rev.operations, rev.succeeded, rev.attempts) == (2, 2, 3)
    assert rev.retries_before_success == 1
    assert rev.failure_types == {"malformed": 1}
    assert m.components["fixer"].attempts == 1
    assert m.verdicts == {"malformed": 1, "fixes": 1, "approve": 1}
    assert m.fix_rounds == 1
    assert (m.reviews, m.first_pass_approved) == (1, 0)
    assert m.tasks == 1
    assert m.runs[0].status == "approved"
    verdicts = [e for e in events if isinstance(e, VerdictEvent)]
    assert [v.dialect for v in verdicts][1:] == ["verdict-object", "verdict-object"]
    assert [v.answer_via for v in verdicts] == ["final_message"] * 3  # a command reviewer
    assert [v.confidence for v in verdicts] == [None, 0.9, 0.9]
    assert verdicts[2].summary == "reviewed the change"
    assert verdicts[1].findings[0].title == "No test for sub"
    assert verdicts[1].findings[0].status == "open"
    attempts = [e for e in events if isinstance(e, AgentAttempt)]
    assert all(a.started_at is not None and a.started_at <= a.at for a in attempts)
    assert len({e.event_id for e in events}) == len(events)
    assert review_events(run_dir) == events  # ids and times come from the records

    # `mergegate stats` on the same directory says the same
    out = CliRunner().invoke(cli, ["stats", str(run_dir), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)["metrics"]
    assert data["components"]["reviewer"]["attempts"] == 3
    assert data["components"]["reviewer"]["average_retries"] == 0.5
    assert data["fix_rounds"] == 1


def test_live_review_progress_maps_to_step_and_notice_events() -> None:
    from mergegate.events import Notice, StepProgress
    from mergegate.review import EventKind, ReviewEvent
    from mergegate.review.stream import progress_event

    step = progress_event(
        ReviewEvent(
            EventKind.RETRY,
            "spec review output no output — retrying once",
            round=1,
            stage="spec",
            attempt=1,
        ),
        run_id="r1",
        task="T1",
    )
    assert isinstance(step, StepProgress)
    assert (step.step, step.round, step.stage, step.task) == ("retry", 1, "spec", "T1")
    assert step.message.startswith("spec review output")
    notice = progress_event(ReviewEvent(EventKind.NOTICE, "no --spec given"), run_id="r1")
    assert isinstance(notice, Notice)
    assert notice.message == "no --spec given"
