"""`mergegate run` overhead, parallel efficiency and resume time, as ratios of the same run.

1. Orchestration overhead per task: a run of instant scripted agents (a shell script that
   writes a file, or prints an approval with the nonce). mergegate's time = wall time minus
   the agents' own time (the supervised processes' durations, from each attempt's record);
   per task, and as a share of a 60-second agent task. Goal: <= 150 ms per task on SQLite.
2. Parallel efficiency: 4 units of a 2-second sleeping implementer at concurrency 4, against
   the same unit alone (ideal: the same wall time). Goal: >= 0.9.
3. Resume: a 1,000-task run killed in its last task (999 done), resumed in-process; mergegate's
   time to replay and finish = wall time minus the agents' own time. Goal: < 2 s.

Every plan's tasks carry a check (`true`) so each phase has a program check to be verified
against (a phase nothing can check is never verified, and the run would stop there).

Usage: bench_run.py [--quick] [--count] [--overhead-only] [--repeat N]
  --quick          a 200-task resume run instead of 1,000
  --repeat N       build and resume N killed runs, report the best resume (default 1)
  --count          also count process spawns and fsyncs per task in the overhead run, by program
  --overhead-only  measure 1. only (a shared machine: the cheapest comparison of two trees)
"""

from __future__ import annotations

import collections
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _smoke import sizes
from mergegate.config import load_config
from mergegate.engine import AgentSpec, RunAgents, RunOptions, RunRequest, create_run, execute_run
from mergegate.plans import Check, Phase, Plan, PlanFormat, Task, Unit
from mergegate.processes import run_command, supervisor
from mergegate.store import RunStore, run_lease

AGENT = """#!/bin/sh
# instant scripted agent: reviewer approves with a verdict object (its whole answer) naming the
# review id and scope mergegate issued; implementer writes a new file and hands in its
# `agent-result`, its whole stdout (a run asks again, in the same session, until it gets one)
if [ -n "$MERGEGATE_REVIEW_ID" ]; then
  verdict='{"review_id": "%s", "scope": "%s", "verdict": "approve", "conditions": []'
  printf "$verdict"', "findings": [], "summary": "instant", "confidence": 1.0}\\n' \\
    "$MERGEGATE_REVIEW_ID" "$MERGEGATE_REVIEW_SCOPE"
else
  if [ -n "$AGENT_SLEEP" ] && grep -q "$AGENT_SLEEP_ON" "$MERGEGATE_PROMPT_FILE"; then
    sleep "$AGENT_SLEEP"
  fi
  # a file named and filled after the attempt (its prompt file's path): in the sandbox's own
  # pid namespace every agent's $$ is the same, so the pid would make units collide
  name=$(printf '%s' "$MERGEGATE_PROMPT_FILE" | cksum | cut -d ' ' -f 1)
  echo "$MERGEGATE_PROMPT_FILE" > "f-$name.txt"
  printf '{"task_id": "%s", "success": true, "completed_normally": true}\\n' "$MERGEGATE_TASK_ID"
fi
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "b@example.com")
    git(root, "config", "user.name", "b")
    (root / "README.md").write_text("bench\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def plan_of(shape: list[list[int]]) -> Plan:
    """shape[phase][unit] = number of tasks."""
    phases = []
    for p, units in enumerate(shape, start=1):
        built = [
            Unit(
                id=f"p{p}u{u}",
                tasks=tuple(
                    Task(
                        id=f"t{t}",
                        name=f"task {t}",
                        action="write a file",
                        checks=(Check(run="true"),),
                    )
                    for t in range(1, n + 1)
                ),
            )
            for u, n in enumerate(units, start=1)
        ]
        phases.append(Phase(id=f"p{p}", units=tuple(built)))
    return Plan(format=PlanFormat.NATIVE, title="bench", phases=tuple(phases))


def agents_time(run_dir: Path) -> float:
    """The agents' and checks' own time: each supervised process's recorded duration (an
    implementer's or check's `result.json`, a reviewer attempt's JSON report)."""
    total = 0.0
    for path in run_dir.rglob("result.json"):
        data = json.loads(path.read_text())
        total += float(data.get("duration_s") or 0.0)
    for path in run_dir.rglob("r[0-9][0-9]-*-a[0-9]*.json"):
        data = json.loads(path.read_text())
        total += float(data.get("duration_s") or 0.0)
    return total


def start(
    root: Path, name: str, plan: Plan, agent: Path, concurrency: int
) -> tuple[Path, str, Path]:
    repo = make_repo(root / name)
    state = root / f"{name}-state"
    spec = AgentSpec(cmd=str(agent))
    record = create_run(
        RunRequest(
            plan=plan,
            repo=repo,
            state_dir=state,
            agents=RunAgents(implementer=spec, reviewer=spec),
            options=RunOptions.from_config(load_config(repo), concurrency=concurrency),
        )
    )
    return state, record.run_id, repo


def timed_run(
    root: Path, name: str, plan: Plan, agent: Path, concurrency: int
) -> tuple[float, float, dict[str, Any]]:
    state, run_id, repo = start(root, name, plan, agent, concurrency)
    t0 = time.perf_counter()
    report = execute_run(state, run_id, load_config(repo))
    wall = time.perf_counter() - t0
    assert report["status"] == "completed", report["status"]
    return wall, agents_time(state / "runs" / run_id), report


class Counter:
    """Counts process spawns (by program and first arguments) and fsyncs while active."""

    def __init__(self) -> None:
        self.spawns: collections.Counter[str] = collections.Counter()
        self.fsyncs = 0

    def __enter__(self) -> Counter:
        self._spawn, self._fsync = supervisor._spawn, os.fsync

        def spawn(argv: Any, *args: Any, **kwargs: Any) -> Any:
            words = [w for w in argv[:6] if not w.startswith("-")]
            name = Path(words[0]).name
            self.spawns[" ".join([name, *words[1:2]]) if name == "git" else name] += 1
            return self._spawn(argv, *args, **kwargs)

        def fsync(fd: int) -> None:
            self.fsyncs += 1
            self._fsync(fd)

        supervisor._spawn = spawn  # type: ignore[assignment]
        os.fsync = fsync
        return self

    def __exit__(self, *exc: object) -> None:
        supervisor._spawn = self._spawn  # type: ignore[assignment]
        os.fsync = self._fsync


def _overhead_run(root: Path, agent: Path, tasks: int) -> tuple[float, Counter]:
    with Counter() as counter:
        wall, own, _ = timed_run(root, f"overhead{tasks}", plan_of([[tasks]]), agent, 1)
    return wall - own, counter


def spawn_cost(root: Path) -> float:
    """The baseline of the same run: seconds for one `git --version` through the supervisor's
    `run_command` (what most of a task's orchestration is made of), best of three batches."""
    batches = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(20):
            run_command(["git", "--version"], root)
        batches.append((time.perf_counter() - t0) / 20)
    return min(batches)


def overhead(root: Path, agent: Path, count: bool) -> float:
    """Per task: the slope between a 10-task and a 40-task run of one unit (what one more task
    costs), so the run's fixed costs (starting DBOS, verifying the phase, merging) are
    reported apart instead of being spread over the tasks. The ratio to the cost of one
    process spawn measured in the same run (before and after) is what to compare across
    machines and loads."""
    small, large = sizes((10, 40), (2, 4))
    before = spawn_cost(root)
    m_small, c_small = _overhead_run(root, agent, small)
    m_large, c_large = _overhead_run(root, agent, large)
    spawn = (before + spawn_cost(root)) / 2
    per_task = (m_large - m_small) / (large - small)
    fixed = m_small - small * per_task
    spawns = (sum(c_large.spawns.values()) - sum(c_small.spawns.values())) / (large - small)
    fsyncs = (c_large.fsyncs - c_small.fsyncs) / (large - small)
    print(
        f"1. overhead: mergegate's time (wall minus the agents' own) {m_small:.2f} s for "
        f"{small} tasks, {m_large:.2f} s for {large} tasks (one unit)"
    )
    print(
        f"   per task: {per_task * 1000:.0f} ms (goal <= 150 ms); share of a 60 s agent "
        f"task: {per_task / 60:.2%}; fixed per run: {fixed:.2f} s"
    )
    print(f"   per task: {spawns:.1f} process spawns, {fsyncs:.1f} fsyncs")
    print(
        f"   baseline: one git spawn {spawn * 1000:.1f} ms in this run; a task costs "
        f"{per_task / spawn:.0f} spawns' time (150 ms = {0.150 / spawn:.0f} at this speed)"
    )
    if count:
        for name, n in c_large.spawns.most_common():
            extra = (n - c_small.spawns.get(name, 0)) / (large - small)
            if extra:
                print(f"     {extra:5.1f}  {name}")
    return per_task


def parallel(root: Path, agent: Path) -> float:
    os.environ["AGENT_SLEEP"] = sizes("2", "0.5")
    os.environ["AGENT_SLEEP_ON"] = "write a file"
    try:
        one, _, _ = timed_run(root, "par1", plan_of([[1]]), agent, 4)
        four, _, _ = timed_run(root, "par4", plan_of([[1, 1, 1, 1]]), agent, 4)
    finally:
        del os.environ["AGENT_SLEEP"], os.environ["AGENT_SLEEP_ON"]
    efficiency = one / four
    print(
        f"2. parallel: 1 unit {one:.2f} s; 4 units at concurrency 4 {four:.2f} s; "
        f"efficiency {efficiency:.2f} of ideal (goal >= 0.9)"
    )
    return efficiency


def build_killed_run(root: Path, agent: Path, total: int) -> tuple[Path, str, Path, float]:
    """A run of `total` tasks, killed (SIGKILL) while its last task's implementer runs."""
    per_phase = sizes(20, 4)
    phases = (total - per_phase) // per_phase
    shape = [[per_phase // 2, per_phase // 2] for _ in range(phases)] + [[per_phase]]
    plan = plan_of(shape)
    state, run_id, repo = start(root, "resume", plan, agent, 2)
    # create_run holds the run's lease for this process, which would execute it; the process
    # below executes it instead, and is refused while this one holds the lease
    RunStore(state).leases().release(run_lease(run_id), run_id)
    last = f"task {per_phase}\n"
    os.environ["AGENT_SLEEP"], os.environ["AGENT_SLEEP_ON"] = (
        "600",
        f"# Task t{per_phase}: {last.strip()}",
    )
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(state)}
    # run it as a process (resume of a created run), kill it in the last task
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mergegate",
            "resume",
            run_id,
            "--repo",
            str(repo),
            "--progress",
            "none",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(root / "resume-build.log").open("w"),
    )
    last_dir = (
        state
        / "runs"
        / run_id
        / f"p{phases + 1}"
        / f"p{phases + 1}u1"
        / f"t{per_phase}"
        / "attempts"
    )
    while not last_dir.is_dir():
        time.sleep(0.2)
        if proc.poll() is not None:
            log = (root / "resume-build.log").read_text()[-2000:]
            raise SystemExit(f"the run ended before its last task:\n{log}")
    built = time.perf_counter() - t0
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    del os.environ["AGENT_SLEEP"], os.environ["AGENT_SLEEP_ON"]
    # the killed run's sleeping agent is left running: resume kills it (its process record)
    return state, run_id, repo, built


def resume(root: Path, agent: Path, total: int, repeat: int) -> float:
    """Build a killed run and resume it, `repeat` times; the best of them, since the machine is
    shared and a resume is short. Each resume has a run of its own: a copy of a built run put
    back in place cannot be resumed, since its workspaces' `.git` directories would be other
    directories than the ones mergegate made, which the workspace check refuses (as it should)."""
    results, builds = [], []
    for n in range(repeat):
        state, run_id, repo, built = build_killed_run(root / f"resume{n}", agent, total)
        builds.append(built)
        results.append(_resume_once(state, run_id, repo))
    built = statistics.mean(builds)
    wall, own, done = min(results)
    print(
        f"3. resume: {done} tasks ({total - 1} done before the kill; "
        f"building them took {built:.0f} s); best of {repeat}: "
        + ", ".join(f"{w - o:.2f}" for w, o, _ in results)
    )
    print(
        f"   resume wall {wall:.2f} s, agents' own {own:.2f} s, "
        f"mergegate {wall - own:.2f} s (goal < 2 s)"
    )
    return wall - own


def _resume_once(state: Path, run_id: str, repo: Path) -> tuple[float, float, int]:
    before = agents_time(state / "runs" / run_id)
    os.environ["MERGEGATE_STATE_DIR"] = str(state)
    t0 = time.perf_counter()
    report = execute_run(state, run_id, load_config(repo))
    wall = time.perf_counter() - t0
    own = agents_time(state / "runs" / run_id) - before
    assert report["status"] == "completed", report["status"]
    return wall, own, sum(len(u["tasks"]) for u in report["units"])


def main() -> None:
    total = 200 if "--quick" in sys.argv else sizes(1000, 8)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agent = root / "agent.sh"
        agent.write_text(AGENT)
        agent.chmod(0o755)
        os.environ["MERGEGATE_STATE_DIR"] = str(root / "default-state")
        overhead(root, agent, "--count" in sys.argv)
        if "--overhead-only" in sys.argv:
            return
        parallel(root, agent)
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
        resume(root, agent, total, repeat)


if __name__ == "__main__":
    main()
