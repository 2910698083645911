"""The review loop as steps over a typed state: the state round-trips as JSON, `decide` is
pure, and a run interrupted between two steps continues from its checkpoint without running
any completed step again."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from _verdict_object import finding as object_finding
from _verdict_object import pins_of, verdict_object
from mergegate.agents.base import AgentRequest, AgentResult, Backend, RunStatus, Usage
from mergegate.review import (
    EventKind,
    FixRound,
    ReviewAttempt,
    ReviewEvent,
    ReviewLoop,
    ReviewOptions,
    ReviewState,
    ReviewStatus,
    ReviewStop,
    decide,
    load_state,
)
from mergegate.testing import ScriptedBackend


def review_id_of(request: AgentRequest) -> str:
    return pins_of(request)[0]


def answer(verdict: str, *findings: dict[str, Any]) -> Any:
    def reply(request: AgentRequest) -> AgentResult:
        review_id, scope = pins_of(request)
        text = verdict_object(verdict, findings, review_id=review_id, scope=scope)
        return AgentResult(
            backend="rv",
            status=RunStatus.OK,
            text=text,
            session_id=request.resume_session_id or f"rv-{review_id_of(request)}",
            usage=Usage(input_tokens=100, output_tokens=7),
            duration_s=0.25,
        )

    return reply


def finding(title: str) -> dict[str, Any]:
    return object_finding(title[:8], title=title)


class MemoryRepo:
    """An in-memory `Repository`: one change, and a new sha per fix commit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.commits: list[str] = []

    def resolve(self, ref: str) -> str:
        return {"HEAD~1": "a" * 40, "HEAD": "b" * 40}.get(ref, ref)

    def diff(self, base: str, head: str) -> str:
        return f"--- a/app.py\n+++ b/app.py\n@@ {base[:4]}..{head[:4]} @@\n+x = 1\n"

    def changed_files(self, base: str, head: str) -> list[str]:
        return ["app.py"]

    def read_file(self, rev: str, path: str) -> str | None:
        return "x = 1\n"

    def read_files(self, rev: str, paths: Sequence[str]) -> dict[str, str | None]:
        return {p: self.read_file(rev, p) for p in paths}

    def commit_all(self, message: str) -> str | None:
        self.commits.append(message)
        return f"{len(self.commits):x}" * 40

    def checkout(self, rev: str) -> contextlib.nullcontext[Path]:
        return contextlib.nullcontext(self.root)


# A whole fix loop: a malformed spec review retried, a quality "With fixes", a fix round,
# a scoped re-review that approves. Five agent runs, in this order.
REVIEWER = [
    "The change looks fine to me.",  # spec a1: malformed
    answer("approve"),  # spec a2
    answer("request_changes", finding("Missing test for x")),  # quality a1
    answer("approve"),  # round 2 quality a1
]
IMPLEMENTER = ["fixed it"]
CALLS = [
    ("reviewer", 1, "spec", 1),
    ("reviewer", 1, "spec", 2),
    ("reviewer", 1, "quality", 1),
    ("implementer", 1, "fix", 1),
    ("reviewer", 2, "quality", 1),
]
OPTIONS = ReviewOptions(base="HEAD~1", spec="Add x.", fix=True)


class Crash(Exception):
    """Stands for the orchestrator dying in the middle of a step."""


class CrashOnCall:
    """A backend that dies (raises) on its `n`-th run, before the agent answers."""

    def __init__(self, inner: ScriptedBackend, n: int) -> None:
        self.inner, self.n, self.calls = inner, n, 0
        self.name, self.capabilities = inner.name, inner.capabilities

    def run(self, request: AgentRequest) -> AgentResult:
        self.calls += 1
        if self.calls == self.n:
            raise Crash(f"killed during call {self.n}")
        return self.inner.run(request)


def run(
    tmp_path: Path,
    reviewer: Backend,
    implementer: Backend,
    events: list[ReviewEvent],
    state: ReviewState | None = None,
) -> Any:
    loop = ReviewLoop(
        MemoryRepo(tmp_path),
        reviewer,
        OPTIONS,
        run_dir=tmp_path / "run",
        implementer=implementer,
        events=events.append,
        run_id="run-1",
        state=state,
    )
    return loop.run()


def started(events: list[ReviewEvent]) -> list[tuple[int, str, int]]:
    return [(e.round, e.stage, e.attempt) for e in events if e.kind is EventKind.AGENT_STARTED]


def test_an_uninterrupted_run_takes_the_five_steps(tmp_path: Path) -> None:
    events: list[ReviewEvent] = []
    outcome = run(tmp_path, ScriptedBackend(REVIEWER), ScriptedBackend(IMPLEMENTER), events)
    assert outcome.status is ReviewStatus.APPROVED
    assert started(events) == [call[1:] for call in CALLS]


@pytest.mark.parametrize("crash_at", range(len(CALLS)), ids=[f"{c[0]}-{c[2]}" for c in CALLS])
def test_an_interrupted_run_continues_without_running_a_completed_step_twice(
    tmp_path: Path, crash_at: int
) -> None:
    """Raise inside the step that makes agent call `crash_at`, then run the driver again from
    the saved state: every completed step ran once, the interrupted one once more, and the
    answer is the one an uninterrupted run gives."""
    role, *_ = CALLS[crash_at]
    done = Counter(c[0] for c in CALLS[:crash_at])  # agent calls completed per role
    first: list[ReviewEvent] = []
    reviewer, implementer = ScriptedBackend(REVIEWER), ScriptedBackend(IMPLEMENTER)
    backends = {"reviewer": reviewer, "implementer": implementer}
    backends[role] = CrashOnCall(backends[role], done[role] + 1)
    with pytest.raises(Crash):
        run(tmp_path, backends["reviewer"], backends["implementer"], first)

    saved = load_state(tmp_path / "run")
    second: list[ReviewEvent] = []
    outcome = run(
        tmp_path,
        ScriptedBackend(REVIEWER[done["reviewer"] :]),
        ScriptedBackend(IMPLEMENTER[done["implementer"] :]),
        second,
        state=saved,
    )
    assert outcome.status is ReviewStatus.APPROVED, outcome.message
    runs = Counter(started(first) + started(second))
    interrupted = CALLS[crash_at][1:]
    assert runs == Counter({call[1:]: 1 for call in CALLS}) + Counter({interrupted: 1})
    assert started(second)[0] == interrupted  # picks up exactly where it stopped
    # No round started again but the one whose first step was interrupted.
    rounds = Counter(e.round for e in first + second if e.kind is EventKind.ROUND_STARTED)
    again = [interrupted[0]] if crash_at in (0, 4) else []  # CALLS[0], [4]: a round's first
    assert rounds == Counter([1, 2, *again])
    # The interrupted attempt's directory stays; its re-run got a fresh one.
    round_, stage, attempt = interrupted
    stem = f"r{round_:02d}-{stage}" + ("" if stage == "fix" else f"-a{attempt}")
    assert (tmp_path / "run" / stem).is_dir()
    assert (tmp_path / "run" / f"{stem}-rerun2").is_dir()
    assert [a.decision for r in outcome.rounds for a in r.attempts] == [
        "malformed",
        "approve",
        "fixes",
        "approve",
    ]


def test_the_state_round_trips_as_json_at_every_checkpoint(tmp_path: Path) -> None:
    run(tmp_path, ScriptedBackend(REVIEWER), ScriptedBackend(IMPLEMENTER), [])
    checkpoints = sorted((tmp_path / "run" / "state").glob("*.json"))
    assert len(checkpoints) == 1 + len(CALLS)  # the start, then one per step
    for path in checkpoints:
        state = ReviewState.model_validate_json(path.read_text())
        assert ReviewState.model_validate_json(state.model_dump_json()) == state
    final = ReviewState.model_validate_json(checkpoints[-1].read_text())
    assert [(r.round, r.base_sha[:1], r.head_sha[:1], r.scoped) for r in final.rounds] == [
        (1, "a", "b", False),
        (2, "b", "1", True),
    ]
    assert final.implementer_session == "scripted-session-1"
    spec = final.rounds[0].progress_of("spec")
    assert spec is not None
    assert spec.attempts == 2
    assert spec.session_id is not None  # the malformed attempt's session, resumed by the retry
    assert [r.status.value for r in final.ledger.records] == ["resolved"]
    assert final.usage_totals()["reviewer"].usage.input_tokens == 300  # 3 answers of 100
    assert final.usage_totals()["implementer"].runs == 1


def test_decide_is_pure_and_names_every_next_step(tmp_path: Path) -> None:
    run(tmp_path, ScriptedBackend(REVIEWER), ScriptedBackend(IMPLEMENTER), [])
    states = [
        ReviewState.model_validate_json(p.read_text())
        for p in sorted((tmp_path / "run" / "state").glob("*.json"))
    ]
    steps = [decide(s, OPTIONS) for s in states]
    assert steps == [decide(s, OPTIONS) for s in states]  # the same answer every time
    assert steps[:-1] == [
        ReviewAttempt(1, "spec", 1),
        ReviewAttempt(1, "spec", 2),
        ReviewAttempt(1, "quality", 1),
        FixRound(1),
        ReviewAttempt(2, "quality", 1),
    ]
    assert isinstance(steps[-1], ReviewStop)
    assert steps[-1].status is ReviewStatus.APPROVED
    # Without fix mode the same round-1 state ends the run instead of fixing.
    no_fix = OPTIONS.model_copy(update={"fix": False})
    stop = decide(states[3], no_fix)
    assert isinstance(stop, ReviewStop)
    assert stop.status is ReviewStatus.CHANGES_REQUESTED


def test_raise_for_status_raises_the_error_that_carries_the_exit_code(tmp_path: Path) -> None:
    from mergegate.decisions import ExitCode
    from mergegate.errors import AgentError, EscalationError

    approved = run(tmp_path / "a", ScriptedBackend(REVIEWER), ScriptedBackend(IMPLEMENTER), [])
    approved.raise_for_status()  # approved: nothing to raise
    capped = ReviewLoop(
        MemoryRepo(tmp_path),
        ScriptedBackend([answer("request_changes", finding("Missing test for x"))]),
        OPTIONS.model_copy(update={"max_rounds": 1, "spec": None}),
        run_dir=tmp_path / "capped",
        implementer=ScriptedBackend(IMPLEMENTER),
    ).run()
    assert capped.status is ReviewStatus.NEEDS_MANUAL_REVIEW
    with pytest.raises(EscalationError, match="revision cap reached") as escalated:
        capped.raise_for_status()
    assert escalated.value.exit_code is ExitCode.ESCALATED == capped.exit_code
    failed = ReviewLoop(
        MemoryRepo(tmp_path),
        ScriptedBackend([]),  # an exhausted script is an agent error
        OPTIONS.model_copy(update={"spec": None}),
        run_dir=tmp_path / "failed",
        implementer=ScriptedBackend(IMPLEMENTER),
    ).run()
    with pytest.raises(AgentError) as agent:
        failed.raise_for_status()
    assert agent.value.exit_code is ExitCode.AGENT_FAILURE == failed.exit_code
