"""A run's stop request, a person's answers and its budget's spending are rows of the run's
database, read the same by every process of the run however far apart: the semantics, on a
run's own SQLite file, on one configured SQLite file, and on PostgreSQL (the fleet, marker
`fleet`).

* a stop request is seen by every worker before its next agent (one read per agent start);
* an answer is written once by the CLI and read by whichever worker waits for it;
* a token or cost budget counts what every worker spent, read again before each agent
  starts: the run overspends by at most one agent step per worker, whatever its units in
  flight.

A worker sees all three with nothing shared but the database URL: another HOME, another
work directory, another state directory, the queueing process's state directory gone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from _cards import card
from mergegate.agents.base import AgentRequest, AgentResult, BackendCapabilities, RunStatus, Usage
from mergegate.engine import Budget, Metered
from mergegate.engine._context.orphans import RunProcesses
from mergegate.engine._context.outcomes import CheckpointAnswer
from mergegate.engine._fleet.janitor import BEAT_S, Janitor
from mergegate.plans import Plan, PlanFormat
from mergegate.processes import ProcessOutcome, install_ledger, supervise
from mergegate.store import RunRows, RunStore, StateKind

RUN = "r-shared"
Worker = Callable[[str], RunRows]
"""The rows of the run as one worker sees them: its own state directory, the same database."""


class _Paid:
    """A backend that reports 15 tokens and $0.75 per run."""

    name = "paid"
    capabilities = BackendCapabilities(usage=True, cost=True)

    def run(self, request: AgentRequest) -> AgentResult:
        time.sleep(0.001)  # let the other workers interleave
        return AgentResult(
            backend=self.name,
            status=RunStatus.OK,
            usage=Usage(input_tokens=10, output_tokens=5),
            cost_usd=0.75,
        )


def _request(tmp_path: Path) -> AgentRequest:
    return AgentRequest(prompt="go", cwd=tmp_path, timeout_s=600)


def _workers(tmp_path: Path, database_url: str | None) -> Worker:
    """Make the run from one state directory; each worker opens it from a state directory of
    its own — but with a run's own SQLite file (no database configured), from the maker's:
    that file is found by its path, on one machine."""
    maker = RunStore(tmp_path / "maker", database_url)
    maker.create(
        card(RUN),
        Plan(format=PlanFormat.NATIVE, phases=()),
    )

    def open_as(name: str) -> RunRows:
        state = tmp_path / ("maker" if database_url is None else name)
        return RunStore(state, database_url).rows(RUN)

    return open_as


@pytest.fixture(
    params=["own-sqlite", "shared-sqlite", pytest.param("postgres", marks=pytest.mark.fleet)]
)
def worker(request: pytest.FixtureRequest, tmp_path: Path) -> Worker:
    if request.param == "own-sqlite":
        return _workers(tmp_path, None)
    if request.param == "shared-sqlite":
        return _workers(tmp_path, f"sqlite:///{tmp_path / 'runs.sqlite'}")
    return _workers(tmp_path, request.getfixturevalue("postgres_url"))


def test_a_stop_is_seen_by_every_worker_before_its_next_agent(
    worker: Worker, tmp_path: Path
) -> None:
    a, b = worker("a"), worker("b")
    agent = Metered(_Paid(), Budget(started=time.time(), ledger=b), None)
    assert agent.run(_request(tmp_path)).ok
    a.request_stop("cancelled by mergegate cancel", replace=True)
    refused = agent.run(_request(tmp_path))
    assert refused.status is RunStatus.KILLED
    assert agent.stopped == "cancelled by mergegate cancel"
    b.clear_stop()  # a person answered what stopped it
    assert a.stop_request() is None
    assert agent.run(_request(tmp_path)).ok


def test_an_answer_is_read_by_whichever_worker_waits_for_it(worker: Worker) -> None:
    cli, waiting, other = worker("cli"), worker("w1"), worker("w2")
    assert waiting.get(StateKind.ANSWER, ("U1", "T2"), CheckpointAnswer) is None
    given = CheckpointAnswer(answer="approve", note="looked at it", at=time.time(), who="ann")
    cli.put(StateKind.ANSWER, ("U1", "T2"), given)
    assert waiting.get(StateKind.ANSWER, ("U1", "T2"), CheckpointAnswer) == given
    assert other.get(StateKind.ANSWER, ("U1", "T2"), CheckpointAnswer) == given
    assert other.get(StateKind.ANSWER, ("U1", "T1"), CheckpointAnswer) is None


def test_a_budget_counts_what_other_workers_spent_since_they_started(
    worker: Worker, tmp_path: Path
) -> None:
    first = Budget(started=time.time(), max_tokens=40, ledger=worker("a"))
    second = Budget(started=first.started, max_tokens=40, ledger=worker("b"))
    first.seed()  # both start before anything is spent
    second.seed()
    a, b = Metered(_Paid(), first, None), Metered(_Paid(), second, None)
    assert a.run(_request(tmp_path)).ok
    assert a.run(_request(tmp_path)).ok  # 30 tokens
    assert b.run(_request(tmp_path)).ok  # 30 < 40: may start; 45 now
    assert a.run(_request(tmp_path)).status is RunStatus.KILLED
    assert a.stopped == "budget: 45 tokens used of 40"
    assert b.run(_request(tmp_path)).status is RunStatus.KILLED
    assert b.stopped == "budget: 45 tokens used of 40"


def test_workers_overspend_a_budget_by_at_most_one_agent_each(
    worker: Worker, tmp_path: Path
) -> None:
    count, limit, per_agent = 4, 100, 15
    ledgers = [worker(f"w{i}") for i in range(count)]
    started = time.time()
    problems: list[BaseException] = []

    def spend(ledger: RunRows) -> None:
        try:
            agent = Metered(_Paid(), Budget(started=started, max_tokens=limit, ledger=ledger), None)
            while agent.run(_request(tmp_path)).ok:
                pass
        except BaseException as exc:  # reported by the test below
            problems.append(exc)

    threads = [threading.Thread(target=spend, args=(ledger,)) for ledger in ledgers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not problems
    tokens, _ = ledgers[0].usage()
    assert limit <= tokens < limit + count * per_agent


class _Counted(_Paid):
    """`_Paid`, slow enough that a worker's units are all in flight at once, counting starts."""

    def __init__(self) -> None:
        self.starts = 0
        self._lock = threading.Lock()

    def run(self, request: AgentRequest) -> AgentResult:
        with self._lock:
            self.starts += 1
        time.sleep(0.2)
        return super().run(request)


@pytest.mark.parametrize("units", [1, 4])
def test_each_worker_starts_at_most_one_agent_past_the_budget(
    worker: Worker, tmp_path: Path, units: int
) -> None:
    """Two workers, each with `units` units in flight (`--concurrency`), and room for one more
    agent: each worker starts at most one agent past the limit, not one per unit."""
    limit, per_agent, count = 100, 15, 2
    ledgers = [worker(f"w{i}") for i in range(count)]
    started = time.time()
    budgets = [Budget(started=started, max_tokens=limit, ledger=ledger) for ledger in ledgers]
    backend = _Counted()
    for budget in budgets:  # each worker has run one agent: it knows what a step costs
        assert Metered(backend, budget, None).run(_request(tmp_path)).ok
    ledgers[0].add_usage(limit - per_agent - ledgers[0].usage()[0], 0.0)  # room for one step
    backend.starts = 0
    problems: list[BaseException] = []

    def unit(budget: Budget) -> None:
        try:
            agent = Metered(backend, budget, None)
            while agent.run(_request(tmp_path)).ok:
                pass
        except BaseException as exc:  # reported by the test below
            problems.append(exc)

    threads = [threading.Thread(target=unit, args=(b,)) for b in budgets for _ in range(units)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not problems
    assert backend.starts <= count, f"{backend.starts} agents started past the budget"
    tokens, _ = ledgers[0].usage()
    assert limit <= tokens <= limit - per_agent + count * per_agent


class _Overlapping(_Paid):
    """`_Paid`, noting the most of its runs in flight at once."""

    def __init__(self) -> None:
        self.running = self.most = 0
        self._lock = threading.Lock()

    def run(self, request: AgentRequest) -> AgentResult:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.2)
        with self._lock:
            self.running -= 1
        return super().run(request)


def test_units_run_agents_side_by_side_while_the_budget_has_room(
    worker: Worker, tmp_path: Path
) -> None:
    """The reservation costs no concurrency while each agent in flight has a step's room."""
    budget = Budget(started=time.time(), max_tokens=1000, ledger=worker("w"))
    backend = _Overlapping()
    assert Metered(backend, budget, None).run(_request(tmp_path)).ok  # a step is known
    threads = [
        threading.Thread(target=Metered(backend, budget, None).run, args=(_request(tmp_path),))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert backend.most == 4


@pytest.mark.fleet
def test_a_worker_with_nothing_shared_but_the_database_sees_the_stop_and_the_answer(
    postgres_url: str, tmp_path: Path
) -> None:
    maker = RunStore(tmp_path / "maker" / "state", postgres_url)
    maker.create(
        card(RUN),
        Plan(format=PlanFormat.NATIVE, phases=()),
    )
    rows = maker.rows(RUN)
    rows.put(
        StateKind.ANSWER,
        ("U1", "T2"),
        CheckpointAnswer(answer="reject", note="n", at=1.0, who="ann"),
    )
    rows.add_usage(50, 2.5)
    rows.request_stop("cancelled by mergegate cancel", replace=True)
    shutil.rmtree(tmp_path / "maker")  # the queueing process's state directory is gone

    elsewhere = tmp_path / "host-2"
    for name in ("home", "work", "state"):
        (elsewhere / name).mkdir(parents=True)
    script = textwrap.dedent(
        """
        import json, os, sys, time
        from pathlib import Path
        from mergegate.engine import Budget
        from mergegate.engine._context.outcomes import CheckpointAnswer
        from mergegate.store import RunStore, StateKind

        rows = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), sys.argv[2]).rows(sys.argv[1])
        answer = rows.get(StateKind.ANSWER, ("U1", "T2"), CheckpointAnswer)
        budget = Budget(started=time.time(), max_tokens=40, ledger=rows)
        stopped = budget.stop_reason(None)
        rows.clear_stop()
        print(json.dumps({
            "answer": None if answer is None else answer.answer,
            "stopped": stopped,
            "budget": budget.stop_reason(None),
            "cwd": os.getcwd(),
        }))
        """
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(elsewhere / "home"),
        "MERGEGATE_STATE_DIR": str(elsewhere / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", script, RUN, postgres_url],
        cwd=elsewhere / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {
        "answer": "reject",
        "stopped": "cancelled by mergegate cancel",
        "budget": "budget: 50 tokens used of 40",
        "cwd": str(elsewhere / "work"),
    }
    again = RunStore(tmp_path / "third" / "state", postgres_url).rows(RUN)
    assert again.stop_request() is None  # the other host's clear is seen here too


@pytest.mark.fleet
def test_a_worker_kills_its_running_agents_of_a_cancelled_run_at_its_next_beat(
    postgres_url: str, tmp_path: Path
) -> None:
    """`cancel` on one host kills that host's agents; a worker elsewhere kills its own at its
    next beat — for a cancel only: after `on_escalation = stop` the agents in flight finish."""
    store = RunStore(tmp_path / "state", postgres_url)
    store.create(
        card(RUN),
        Plan(format=PlanFormat.NATIVE, phases=()),
    )
    rows = store.rows(RUN)
    outcomes: list[ProcessOutcome] = []
    install_ledger(RunProcesses(rows, "w1"))
    agent = threading.Thread(
        target=lambda: outcomes.append(supervise(["sleep", "60"], cwd=tmp_path, attempt_dir=None))
    )
    notices: list[str] = []
    mine, other = (
        Janitor(postgres_url, name, None, lambda _e, _h: [], notices.append)
        for name in ("w1", "w2")
    )
    try:
        agent.start()
        wait_until = time.monotonic() + 30
        while not rows.processes() and time.monotonic() < wait_until:
            time.sleep(0.05)
        assert rows.processes(), "the agent was never recorded"
        mine.tick(BEAT_S)
        rows.request_stop("on_escalation = stop: unit A escalated")
        mine.tick(BEAT_S)
        time.sleep(0.3)
        assert agent.is_alive()  # a stop that lets agents in flight finish
        rows.request_stop("cancelled by mergegate cancel", replace=True, running=True)
        other.tick(BEAT_S)  # another worker's beat: not its agent
        time.sleep(0.3)
        assert agent.is_alive()
        mine.tick(BEAT_S)
        agent.join(timeout=30)
        assert not agent.is_alive()
        assert notices == ["1 agent process group(s) of cancelled runs killed"]
        assert rows.processes() == []
    finally:
        install_ledger(None)
        if agent.is_alive():
            rows.request_stop("cancelled", replace=True, running=True)
            mine.tick(BEAT_S)
            agent.join(timeout=30)
        mine.stopped()
        other.stopped()
