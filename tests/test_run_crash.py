"""Crash safety of `mergegate run`: SIGKILL the orchestrator at 20 seeded random moments,
`mergegate resume` after each, and check the run converges to exactly what an uninterrupted
run produces: every unit merged once, no completed review run twice, nothing left behind."""

from __future__ import annotations

import itertools
import json
import random
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import git
from _plan_runs import (
    agent,
    events,
    live_agents,
    make_plan,
    repo_with,
    run_args,
    spawn,
    trailers,
    with_fixes,
)
from mergegate.events import read_events
from mergegate.metrics import Metrics, compute_metrics

KILLS = 20
CONCURRENCY = 2
"""Units at once: a kill can cut as many reviews short as units run."""
SEED = 20261123


def _plan_file(tmp_path: Path) -> Path:
    plan = make_plan(
        {
            "P1": {"A": {"tasks": ["T1", "T2"]}, "B": {"tasks": ["T1", "T2"]}},
            "P2": {"C": {"tasks": ["T1", "T2"], "checks": {"T2": ["test -f C-T2.txt"]}}, "D": {}},
            "P3": {"E": {"depends_on": ["C"]}, "F": {"tasks": ["T1", "T2"]}},
        }
    )
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json(by_alias=True))
    return path


def _agents(tmp_path: Path, label: str) -> tuple[str, str]:
    # long enough that 20 kills land before the run ends however fast a resume becomes: the
    # test proves nothing about crashes if the run outruns its kills
    slow = {"implement": [{"sleep": 0.8}], "fix": [{"sleep": 0.5}]}
    impl = agent(tmp_path, f"impl-{label}", {"*": slow})
    reviews = {"*": {"review": [{"sleep": 0.5, "text": "APPROVE"}]}}
    reviews["B/T2"] = {
        "review": [{"sleep": 0.5, **with_fixes()}, {"sleep": 0.5, "text": "APPROVE"}]
    }
    return impl, agent(tmp_path, f"rev-{label}", reviews)


def _mergegate(
    args: list[str], state: Path, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return spawn(args, {**(extra_env or {}), "MERGEGATE_STATE_DIR": str(state)})


def _run_args(repo: Path, plan: Path, impl: str, rev: str) -> list[str]:
    return run_args(repo, impl, rev, str(plan), "--concurrency", str(CONCURRENCY))


def _finish(proc: subprocess.Popen[str]) -> tuple[int, dict[str, Any]]:
    out, err = proc.communicate(timeout=180)
    assert out.strip().startswith("{"), err[-3000:]
    return proc.returncode, json.loads(out)


def _run_id(state: Path) -> str | None:
    runs = sorted((state / "runs").glob("*/run.json")) if (state / "runs").is_dir() else []
    return runs[0].parent.name if runs else None


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigkill_at_random_moments_then_resume_converges(tmp_path: Path) -> None:
    crash_and_converge(tmp_path, KILLS)


def crash_and_converge(
    tmp_path: Path,
    kill_count: int,
    env: dict[str, str] | None = None,
    *,
    record_s: float = 0.5,
) -> None:
    """SIGKILL the run `kill_count` times at seeded random moments, resume after each, and
    check it converges to what an uninterrupted run produces. `env`: e.g. the database.
    `record_s`: how long after a reviewer ends its step may still be unrecorded (the verdict
    parsed, the records and the read-only proof written, the checkpoint committed), so a kill
    that late still lets the attempt run again."""
    plan = _plan_file(tmp_path)
    # the reference: the same plan, uninterrupted
    ref_repo = repo_with(tmp_path / "ref-repo")
    ref_code, ref = _finish(
        _mergegate(
            _run_args(ref_repo, plan, *_agents(tmp_path, "ref")), tmp_path / "ref-state", env
        )
    )
    assert ref_code == 0, ref
    crash_dir = tmp_path / "crash"
    crash_dir.mkdir()
    repo, state = repo_with(crash_dir / "repo"), crash_dir / "state"
    impl, rev = _agents(crash_dir, "x")
    rng = random.Random(SEED)
    kills: list[float] = []
    proc = _mergegate(_run_args(repo, plan, impl, rev), state, env)
    deadline = time.monotonic() + 30
    while _run_id(state) is None and time.monotonic() < deadline:
        time.sleep(0.02)  # the first kill comes after the run exists (it names the run)
    finished = None
    while len(kills) < kill_count:
        time.sleep(rng.uniform(0.5, 1.8))
        if proc.poll() is not None:
            finished = _finish(proc)
            break
        proc.send_signal(signal.SIGKILL)
        kills.append(time.time())
        proc.communicate(timeout=30)
        run_id = _run_id(state)
        assert run_id is not None
        proc = _mergegate(
            ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none"],
            state,
            env,
        )
    code, out = finished or _finish(proc)
    assert len(kills) >= kill_count, f"the run finished after only {len(kills)} kills"
    assert code == 0, [(u["id"], u["status"], u["reason"]) for u in out["units"]] + [out["message"]]
    assert out["status"] == "completed"
    run_id = out["run_id"]
    # every unit merged exactly once
    assert sorted(trailers(repo, out["into"])) == sorted(
        f"Mergegate-Unit: {run_id}/{u}" for u in "ABCDEF"
    )
    # the same final tree as the uninterrupted run
    assert git(repo, "rev-parse", f"{out['into']}^{{tree}}") == git(
        ref_repo, "rev-parse", f"{ref['into']}^{{tree}}"
    )
    # no completed review ran twice: an attempt folder run again (`-rerunN`) must belong to
    # an attempt that was in flight (started, and not yet recorded) when a kill came
    runs: dict[str, list[dict[str, Any]]] = {}
    for entry in events(crash_dir, "rev-x"):
        runs.setdefault(re.sub(r"-rerun\d+$", "", entry["attempt"]), []).append(entry)
    assert runs
    assert _unexplained_reruns(runs, kills, record_s) == []
    # ... and no review folder (a review's records) was opened twice without a crash in it:
    # a kill leaves at most one review in flight per running unit
    lost = list(Path(out["run_dir"]).rglob("review*.lost-*"))
    assert len(lost) <= len(kills) * CONCURRENCY
    # the event stream counts what the uninterrupted run counts (agent attempts may be more:
    # an attempt lost in a kill really ran, and ran again)
    assert_same_counts(_metrics(out), _metrics(ref))
    # nothing left behind: no agent process, no work tree, no throwaway checkout
    assert live_agents(str(crash_dir)) == []
    assert git(repo, "worktree", "list").count("\n") == 0
    leftovers = state / "worktrees" / run_id
    assert not leftovers.exists() or list(leftovers.iterdir()) == []


def _unexplained_reruns(
    runs: dict[str, list[dict[str, Any]]], kills: list[float], record_s: float
) -> list[tuple[str, list[tuple[str, float]], list[float]]]:
    """Reviewer attempts that started again with no kill between their first start and the
    moment their step was surely recorded (`record_s` after the reviewer ended).

    An attempt starts when its process is spawned (`spawned`, the kernel's record), not when
    the scripted agent writes its start line: the interpreter's start-up comes in between, and
    on a loaded machine a kill of the orchestrator can land there. The agent then runs on as
    an orphan (or is killed by the resume) and its step runs again, rightly, yet its start
    line comes after the kill that explains the rerun. Before the spawn, mergegate wrote the
    attempt's prompt (`begun`) and started the sandbox, which makes its namespaces and only
    then forks the agent: a kill in that window leaves an attempt rightly in flight whose
    process is created after the kill (and, its sandbox orphaned, reaped by the resume)."""
    found = []
    for attempt, entries in runs.items():
        starts = sorted(
            min(e["spawned"], e.get("begun", e["spawned"]))
            for e in entries
            if e["event"] == "start"
        )
        ends = sorted(e["time"] for e in entries if e["event"] == "end")
        for first_start, later_start in itertools.pairwise(starts):
            first_end = min([t for t in ends if t >= first_start], default=later_start)
            if not any(first_start <= k <= first_end + record_s for k in kills):
                found.append(
                    (
                        attempt,
                        [
                            (str(e["event"]), round(e["time"] - first_start, 2))
                            for e in entries
                            if e["time"] >= first_start
                        ],
                        [round(k - first_start, 2) for k in kills if k >= first_start],
                    )
                )
    return found


def _metrics(out: dict[str, Any]) -> Metrics:
    stream = read_events(Path(out["run_dir"]))
    assert stream.replayed == 0  # the journal wrote every event id once, however often resumed
    assert stream.torn == 0
    return compute_metrics(stream.events)


def assert_same_counts(resumed: Metrics, ref: Metrics) -> None:
    """What a resumed run must count exactly as an uninterrupted one does."""
    same = ("tasks", "merges", "fix_rounds", "reviews", "first_pass_approved", "escalations")
    for name in (*same, "verdicts", "checks_passed", "checks_failed", "verifications"):
        assert getattr(resumed, name) == getattr(ref, name), name
    for role in ("implementer", "reviewer", "fixer"):
        assert resumed.usage_by_role[role].attempts >= ref.usage_by_role[role].attempts, role
    assert [r.status for r in resumed.runs] == [r.status for r in ref.runs] == ["completed"]


def _wait_for(path: Path, kind: str, proc: subprocess.Popen[str], count: int = 1) -> None:
    """Until the run's stream holds `count` events of `kind` (or the run ended)."""
    needle = f'"kind":"{kind}"'
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if path.is_file() and path.read_text().count(needle) >= count:
            return
        time.sleep(0.02)
    _, err = proc.communicate(timeout=30)
    raise AssertionError(f"no {count} {kind} event(s) in {path} before the run ended: {err[:6000]}")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_run_killed_and_resumed_counts_what_an_uninterrupted_run_counts(
    tmp_path: Path,
) -> None:
    plan_file = tmp_path / "plan.json"
    plan = make_plan(
        {"P1": {"A": {"tasks": ["T1", "T2"]}, "B": {"tasks": ["T1", "T2"]}}, "P2": {"C": {}}}
    )
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    ref_code, ref = _finish(
        _mergegate(
            _run_args(repo_with(tmp_path / "ref-repo"), plan_file, *_agents(tmp_path, "ref")),
            tmp_path / "ref-state",
        )
    )
    assert ref_code == 0, ref
    crash_dir = tmp_path / "crash"
    crash_dir.mkdir()
    repo, state = repo_with(crash_dir / "repo"), crash_dir / "state"
    impl, rev = _agents(crash_dir, "x")
    proc = _mergegate(_run_args(repo, plan_file, impl, rev), state)
    # kill right after events were written from inside a step (a check), after a recorded
    # step (a verdict: the end of a review), from workflow code (a merge), and in phase two
    for kind, count in (("check", 1), ("verdict", 3), ("merge", 1), ("task.started", 5)):
        while _run_id(state) is None and proc.poll() is None:
            time.sleep(0.02)
        run_id = _run_id(state)
        assert run_id is not None
        _wait_for(state / "runs" / run_id / "events.jsonl", kind, proc, count)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        proc = _mergegate(
            ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none"], state
        )
    code, out = _finish(proc)
    assert code == 0, out
    assert_same_counts(_metrics(out), _metrics(ref))
    assert _metrics(ref).fix_rounds == 1  # B/T2's review asked for one fix
    assert (Path(out["run_dir"]) / "report.html").is_file()
