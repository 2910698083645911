"""Budgets of `mergegate run`: tokens, cost and wall time stop a run cleanly (the task is
`needs_manual_review` with the reason, exit 5), never as an agent failure; what earlier
processes of the run spent counts after a resume."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from _cards import card
from _plan_runs import invoke, make_plan, repo_with
from _verdict_object import verdict_object
from mergegate.agents.base import AgentRequest, AgentResult, BackendCapabilities, RunStatus, Usage
from mergegate.engine import Budget, Metered
from mergegate.plans import Plan, PlanFormat
from mergegate.store import RunRows, RunStore
from mergegate.testing.model_server import ModelServer, Script, Turn, TurnUsage

APPROVE = verdict_object(review_id="{{review_id}}", scope="{{scope}}")
ECHO = {"{{review_id}}": '"review_id": "', "{{scope}}": '"scope": "'}
EDIT = "FILE: {path}\n<<<<<<< CONTENT\nhello\n>>>>>>> END\n"
RESULT = '\n{"task_id": "T1", "success": true, "completed_normally": true}\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


def _script() -> Script:
    return Script(
        turns=[
            Turn(
                match="You are the implementer",
                text=EDIT.format(path="a.txt") + RESULT,
                usage=TurnUsage(input_tokens=4000, output_tokens=100),
            ),
            Turn(
                match="STAGE",
                text=APPROVE,
                echo=ECHO,
                usage=TurnUsage(input_tokens=1000, output_tokens=0),
            ),
        ]
    )


def _configure(repo: Path, server: ModelServer, run: str) -> None:
    (repo / "mergegate.toml").write_text(
        "[agents.backends.openai]\n"
        f'base_url = "{server.openai_base_url}"\n'
        'model = "mock-model"\n'
        "trust_env = false\n"
        f"[run]\n{run}\n"
    )


def test_a_token_budget_stops_the_run_before_the_next_agent(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}}})
    with ModelServer(_script()) as server:
        _configure(repo, server, "max_tokens = 5000")
        args = ["run", "--repo", str(repo), "--implementer", "openai", "--reviewer", "openai"]
        code, out, err = invoke([*args, "--format", "json", "--progress", "none"], plan, tmp_path)
        prompts = [r.prompt for r in server.requests]
    assert code == 5, err
    assert out is not None
    unit = out["units"][0]
    assert unit["status"] == "needs_manual_review"
    [task] = unit["tasks"]  # T2 never started
    assert task["decision"] == "needs_manual_review"
    assert task["reason"].startswith("budget: 5100 tokens used of 5000"), task["reason"]
    # implementer (4100) + the spec review (1000); the quality reviewer was refused
    assert len(prompts) == 2
    assert "STAGE 1 of 2" in prompts[1]


def test_units_in_flight_start_one_agent_past_a_token_budget_not_one_each(
    repo: Path, tmp_path: Path
) -> None:
    """Four units at `--concurrency 4` and a budget one implementer step fits into: the run
    starts the first agent alone (no step is known yet), then one more (room was left), and
    no other: not the four implementers side by side that would overspend by three steps."""
    plan = make_plan({"P1": {u: {} for u in "ABCD"}})
    with ModelServer(_script()) as server:
        _configure(repo, server, "max_tokens = 5000")
        args = ["run", "--repo", str(repo), "--implementer", "openai", "--reviewer", "openai"]
        flags = ["--concurrency", "4", "--format", "json", "--progress", "none"]
        code, out, err = invoke([*args, *flags], plan, tmp_path)
        prompts = [r.prompt for r in server.requests]
    assert code == 5, err
    assert out is not None
    assert len(prompts) == 2, f"{len(prompts)} agents started for a budget of 5000 tokens"
    reasons = [t["reason"] for u in out["units"] for t in u["tasks"] if t.get("reason")]
    assert any(r.startswith("budget: ") for r in reasons), reasons


def test_wall_time_budget_cuts_an_agent_short_as_a_budget_stop(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_RUN__MAX_WALL_S", "2")
    plan = make_plan({"P1": {"A": {}}})
    slow = tmp_path / "slow.sh"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(0o755)
    args = ["run", "--repo", str(repo), "--implementer-cmd", str(slow), "--reviewer-cmd", "true"]
    code, out, _ = invoke([*args, "--format", "json", "--progress", "none"], plan, tmp_path)
    assert code == 5
    assert out is not None
    task = out["units"][0]["tasks"][0]
    assert task["decision"] == "needs_manual_review"
    assert "budget: run wall time 2 s" in task["reason"]


class _Paid:
    """A backend that reports tokens and cost, and how long it was allowed to run."""

    name = "paid"
    capabilities = BackendCapabilities(usage=True, cost=True)

    def __init__(self, status: RunStatus = RunStatus.OK) -> None:
        self.status = status
        self.timeouts: list[float] = []

    def run(self, request: AgentRequest) -> AgentResult:
        self.timeouts.append(request.timeout_s)
        return AgentResult(
            backend=self.name,
            status=self.status,
            usage=Usage(input_tokens=10, output_tokens=5),
            cost_usd=0.75,
        )


def _request(tmp_path: Path) -> AgentRequest:
    return AgentRequest(prompt="go", cwd=tmp_path, timeout_s=600)


def _rows(tmp_path: Path) -> RunRows:
    """The state rows of a run made for the test (its own SQLite file)."""
    store = RunStore(tmp_path / "state")
    store.create(
        card("r1"),
        Plan(format=PlanFormat.NATIVE, phases=()),
    )
    return store.rows("r1")


def test_a_cost_budget_refuses_the_next_agent(tmp_path: Path) -> None:
    budget = Budget(started=time.time(), max_cost_usd=1.0)
    backend = _Paid()
    agent = Metered(backend, budget, None)
    assert agent.run(_request(tmp_path)).ok
    assert agent.run(_request(tmp_path)).ok  # $0.75 < $1.00: may start
    refused = agent.run(_request(tmp_path))  # $1.50 spent
    assert refused.status is RunStatus.KILLED
    assert agent.stopped == "budget: $1.50 spent of $1.00"
    assert len(backend.timeouts) == 2
    assert agent.tokens == 30


def test_spending_of_earlier_processes_counts_after_a_resume(tmp_path: Path) -> None:
    ledger = _rows(tmp_path)
    first = Budget(started=time.time(), max_tokens=40, max_cost_usd=100.0, ledger=ledger)
    Metered(_Paid(), first, None).run(_request(tmp_path))
    Metered(_Paid(), first, None).run(_request(tmp_path))
    again = Budget(started=first.started, max_tokens=40, ledger=ledger)
    again.seed()
    assert (again.tokens, again.cost_usd) == (30, 1.5)
    agent = Metered(_Paid(), again, None)
    agent.run(_request(tmp_path))
    assert agent.run(_request(tmp_path)).status is RunStatus.KILLED
    assert agent.stopped == "budget: 45 tokens used of 40"


def test_a_timeout_cut_short_by_the_budget_is_a_budget_stop(tmp_path: Path) -> None:
    budget = Budget(started=time.time(), run_wall_s=30.0)
    backend = _Paid(RunStatus.TIMEOUT)
    agent = Metered(backend, budget, deadline=time.time() + 5)
    result = agent.run(_request(tmp_path))
    assert result.status is RunStatus.TIMEOUT
    assert backend.timeouts[0] <= 5.0  # cut to what the task had left, not the agent's 600 s
    assert agent.stopped is not None
    assert agent.stopped.startswith("budget")
    # the agent's own limit is not a budget: a timeout then is the agent's failure
    free = Metered(_Paid(RunStatus.TIMEOUT), Budget(time.time()), None)
    free.run(_request(tmp_path))
    assert free.stopped is None
