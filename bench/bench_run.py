"""`mergegate run` overhead, parallel efficiency and resume time, against a baseline tree.

1. Orchestration overhead per task: a run of instant scripted agents (a shell script that
   writes a file, or prints an approval with the nonce). mergegate's time = wall time minus
   the agents' own time (the supervised processes' durations, from each attempt's record);
   per task, and as a share of a 60-second agent task. Goal: <= 100 ms per task on SQLite.
   Beside it, the CPU time one more task costs (`cpu_ms_per_task`: this process and the
   processes it waited for), the figure to compare on a shared, loaded machine.
2. Parallel efficiency: 8 units of a 2-second sleeping implementer at concurrency 8, against
   the same unit alone (ideal: the same wall time). Goal: >= 0.95. Reported beside it: the
   CPU time each extra unit costs (`cpu_per_unit_s`) and the efficiency that cost allows on
   this machine's cores at best (`cpu_bound`, see `parallel`).
3. Resume: a 1,000-task run killed in its last task (999 done), resumed in-process; mergegate's
   time to replay and finish = wall time minus the agents' own time. Goal: < 2 s.

Every plan's tasks carry a check (`true`) so each phase has a program check to be verified
against (a phase nothing can check is never verified, and the run would stop there).

Each measurement runs in a fresh process of this script (`--child`). With `--baseline REF`
the same measurements also run against a throwaway `git worktree` of REF (its `src` first on
`PYTHONPATH`), interleaved with the current tree's, so load on a shared machine hits both
alike; the report gives both trees' medians and their ratio (current / baseline).

Usage: bench_run.py [--quick] [--count] [--overhead-only] [--repeat N] [--baseline REF]
  --quick          a 200-task resume run instead of 1,000
  --repeat N       every measurement N times per tree, interleaved; report medians (default 1)
  --count          also count process spawns and fsyncs per task in the overhead run, by program
                   and, per extra unit of the parallel run, the processes with their CPU time,
                   the SQL statements (DBOS's, its step rows, mergegate's) and the fsyncs
  --overhead-only  measure 1. only (a shared machine: the cheapest comparison of two trees)
  --baseline REF   also measure the tree at git ref REF (e.g. the previous main)
Exits 1 when the current tree misses a goal (0 in smoke mode, see _smoke.py).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlalchemy.event
from sqlalchemy.engine import Engine

import mergegate
from _smoke import goal, sizes
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
) -> tuple[float, float, Any]:
    state, run_id, repo = start(root, name, plan, agent, concurrency)
    t0 = time.perf_counter()
    report = _as_dict(execute_run(state, run_id, load_config(repo)))
    wall = time.perf_counter() - t0
    assert report["status"] == "completed", report["status"]
    return wall, agents_time(state / "runs" / run_id), report


def _as_dict(report: Any) -> Any:
    """The report's JSON form: a `RunReport` model now, a dict before it (`--baseline`)."""
    return report.dump() if hasattr(report, "dump") else report


_DBOS_TABLES = ("operation_outputs", "workflow_status", "workflow_inputs", "workflow_events")


class Counter:
    """Counts process spawns (by program and first arguments) and fsyncs while active; and
    the CPU time of each spawned process (its `wait4` usage, with what it waited for: a
    sandbox's agent or check) by the same name, and the SQL statements run, DBOS's (its
    step rows apart) and mergegate's own."""

    def __init__(self) -> None:
        self.spawns: collections.Counter[str] = collections.Counter()
        self.child_cpu: collections.Counter[str] = collections.Counter()
        self.sql: collections.Counter[str] = collections.Counter()
        self.fsyncs = 0
        self._names: dict[int, str] = {}

    def __enter__(self) -> Counter:
        self._spawn, self._fsync, self._waitpid = supervisor._spawn, os.fsync, os.waitpid

        def spawn(argv: Any, *args: Any, **kwargs: Any) -> Any:
            words = [w for w in argv[:6] if not w.startswith("-")]
            name = Path(words[0]).name
            name = " ".join([name, *words[1:2]]) if name == "git" else name
            self.spawns[name] += 1
            proc = self._spawn(argv, *args, **kwargs)
            self._names[proc.pid] = name
            return proc

        def fsync(fd: int) -> None:
            self.fsyncs += 1
            self._fsync(fd)

        def waitpid(pid: int, options: int) -> tuple[int, int]:
            if pid <= 0:
                return self._waitpid(pid, options)
            done, status, usage = os.wait4(pid, options)
            if done:  # a process the supervisor did not spawn: a sandbox's inner one
                name = self._names.pop(pid, "other (a sandbox's own child)")
                self.child_cpu[name] += usage.ru_utime + usage.ru_stime
            return done, status

        supervisor._spawn = spawn  # type: ignore[assignment]
        os.fsync = fsync
        os.waitpid = waitpid
        sqlalchemy.event.listen(Engine, "before_cursor_execute", self._statement)
        return self

    def _statement(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        text = statement.lower()
        if "insert into" in text and "operation_outputs" in text:
            self.sql["DBOS step rows"] += 1
        dbos = any(table in text for table in _DBOS_TABLES)
        self.sql["DBOS statements" if dbos else "mergegate statements"] += 1

    def __exit__(self, *exc: object) -> None:
        supervisor._spawn = self._spawn  # type: ignore[assignment]
        os.fsync = self._fsync
        os.waitpid = self._waitpid
        sqlalchemy.event.remove(Engine, "before_cursor_execute", self._statement)

    def totals(self) -> dict[str, float]:
        return {
            **{f"spawn {k}": float(v) for k, v in self.spawns.items()},
            **{f"cpu_ms {k}": v * 1000 for k, v in self.child_cpu.items()},
            **{k: float(v) for k, v in self.sql.items()},
            "fsyncs": float(self.fsyncs),
        }


def _overhead_run(root: Path, agent: Path, tasks: int) -> tuple[float, float, Counter]:
    """mergegate's wall time, the CPU time of the run (this process and the processes it
    waited for: git, bwrap, the agents, whose own CPU is a few ms), and the counts."""
    with Counter() as counter:
        cpu0 = cpu_seconds()
        wall, own, _ = timed_run(root, f"overhead{tasks}", plan_of([[tasks]]), agent, 1)
        cpu = cpu_seconds() - cpu0
    return wall - own, cpu, counter


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


def overhead(root: Path, agent: Path) -> dict[str, Any]:
    """Per task: the slope between a 10-task and a 40-task run of one unit (what one more task
    costs), so the run's fixed costs (starting DBOS, verifying the phase, merging) are
    reported apart instead of being spread over the tasks. The ratio to the cost of one
    process spawn measured in the same run (before and after) is what to compare across
    machines and loads."""
    small, large = sizes((10, 40), (2, 4))
    before = spawn_cost(root)
    m_small, cpu_small, c_small = _overhead_run(root, agent, small)
    m_large, cpu_large, c_large = _overhead_run(root, agent, large)
    spawn = (before + spawn_cost(root)) / 2
    per_task = (m_large - m_small) / (large - small)
    by_program = {
        name: (n - c_small.spawns.get(name, 0)) / (large - small)
        for name, n in c_large.spawns.most_common()
    }
    return {
        "ms_per_task": per_task * 1000,
        "cpu_ms_per_task": (cpu_large - cpu_small) / (large - small) * 1000,
        "fixed_s": m_small - small * per_task,
        "spawns_per_task": (sum(c_large.spawns.values()) - sum(c_small.spawns.values()))
        / (large - small),
        "fsyncs_per_task": (c_large.fsyncs - c_small.fsyncs) / (large - small),
        "spawn_ms": spawn * 1000,
        "by_program": {name: extra for name, extra in by_program.items() if extra},
    }


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (git, bwrap, the agents)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def self_seconds() -> float:
    """CPU time of this process alone (every thread: mergegate, DBOS, SQLite)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def parallel(root: Path, agent: Path) -> dict[str, Any]:
    """One unit of a sleeping implementer alone, then `UNITS` such units at concurrency
    `UNITS`: efficiency = the first wall time over the second (ideal 1).

    Beside it, what the cores allow: each unit beyond the first costs `cpu_per_unit_s` of
    CPU (the second run's CPU time minus the first's, over the extra units; the agents sleep,
    so this is mergegate's, git's and the sandbox's). Nearly all of it comes after the
    unit's agent (collect, commit, check, two reviews, publish, merge), when every unit's
    agent ends at about the same time, so on `cores` cores the units' work after their
    agents takes about `units / cores` times one unit's: `cpu_bound` = one_s / (one_s +
    (units / cores - 1) * cpu_per_unit_s) is the efficiency that CPU cost allows at best.

    `self_per_unit_s` is the part of `cpu_per_unit_s` spent in this process (mergegate's
    Python, DBOS, SQLite), the rest in the processes it waited for (git, bwrap, the agents).
    Python runs one thread at a time, so that part does not spread over the cores: the
    8-unit run ends about (units - 1) * self_per_unit_s after the 1-unit run at least, which
    `cpu_bound` (all CPU spread over every core) does not see.

    Both timed runs run warm: an untimed unit runs first, so what a process does once (its
    first imports of the review and agent code, the report's template, DBOS's first launch)
    is in neither; before, it was in the one-unit run alone, which made it longer and the
    efficiency look better than the units' parallelism is."""
    units = sizes(8, 2)
    os.environ["AGENT_SLEEP"] = sizes("2", "0.5")
    os.environ["AGENT_SLEEP_ON"] = "write a file"
    try:
        timed_run(root, "warm", plan_of([[1]]), agent, units)
        cpu0, self0 = cpu_seconds(), self_seconds()
        with Counter() as counted_one:
            one, _, _ = timed_run(root, "par1", plan_of([[1]]), agent, units)
        cpu1, self1 = cpu_seconds(), self_seconds()
        with Counter() as counted_many:
            many, _, _ = timed_run(root, f"par{units}", plan_of([[1] * units]), agent, units)
        cpu2, self2 = cpu_seconds(), self_seconds()
    finally:
        del os.environ["AGENT_SLEEP"], os.environ["AGENT_SLEEP_ON"]
    per_unit = max(0.0, (cpu2 - cpu1) - (cpu1 - cpu0)) / (units - 1)
    first, later = counted_one.totals(), counted_many.totals()
    by_unit = {
        key: (later.get(key, 0.0) - first.get(key, 0.0)) / (units - 1)
        for key in sorted(set(first) | set(later))
    }
    cores = os.cpu_count() or 1
    return {
        "units": units,
        "one_s": one,
        "many_s": many,
        "efficiency": one / many,
        "cpu_one_s": cpu1 - cpu0,
        "cpu_many_s": cpu2 - cpu1,
        "cpu_per_unit_s": per_unit,
        "self_per_unit_s": max(0.0, (self2 - self1) - (self1 - self0)) / (units - 1),
        "cores": cores,
        "cpu_bound": one / (one + max(0.0, units / cores - 1) * per_unit),
        "per_extra_unit": {key: value for key, value in by_unit.items() if value},
    }


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


def resume(root: Path, agent: Path, total: int) -> dict[str, Any]:
    """Build a killed run and resume it. Each resume has a run of its own: a copy of a built
    run put back in place cannot be resumed, since its workspaces' `.git` directories would be
    other directories than the ones mergegate made, which the workspace check refuses (as it
    should)."""
    state, run_id, repo, built = build_killed_run(root / "resume", agent, total)
    before = agents_time(state / "runs" / run_id)
    os.environ["MERGEGATE_STATE_DIR"] = str(state)
    t0 = time.perf_counter()
    report = _as_dict(execute_run(state, run_id, load_config(repo)))
    wall = time.perf_counter() - t0
    own = agents_time(state / "runs" / run_id) - before
    assert report["status"] == "completed", report["status"]
    done = sum(len(u["tasks"]) for u in report["units"])
    return {"tasks": done, "built_s": built, "wall_s": wall, "own_s": own, "s": wall - own}


def child(measure: str, total: int) -> None:
    """One measurement in this process, against whichever `mergegate` it imports; prints it
    as one JSON line."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agent = root / "agent.sh"
        agent.write_text(AGENT)
        agent.chmod(0o755)
        os.environ["MERGEGATE_STATE_DIR"] = str(root / "default-state")
        if measure == "overhead":
            result = overhead(root, agent)
        elif measure == "parallel":
            result = parallel(root, agent)
        else:
            result = resume(root, agent, total)
    # the tree measured: the parent checks it is the one it meant
    result["mergegate"] = str(Path(mergegate.__file__).resolve())
    print("RESULT " + json.dumps(result))


ROOT = Path(__file__).resolve().parents[1]


def measure_in(tree: Path, measure: str, args: argparse.Namespace) -> dict[str, Any]:
    """`measure` in a fresh process importing mergegate from `tree`'s `src`."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", measure]
    argv += ["--quick"] if args.quick else []
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{measure} in {tree} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    if not Path(result["mergegate"]).is_relative_to(tree.resolve()):
        raise SystemExit(f"{measure} imported {result['mergegate']}, not mergegate from {tree}")
    return result


def baseline_tree(ref: str, into: Path) -> Path:
    """A throwaway detached worktree of `ref` under `into`; checks that it has mergegate."""
    tree = into / "baseline"
    git(ROOT, "worktree", "add", "--detach", "-q", str(tree), ref)
    if not (tree / "src" / "mergegate").is_dir():
        raise SystemExit(f"{ref} has no src/mergegate")
    return tree


MEASURES = {
    "overhead": (
        "ms_per_task",
        "cpu_ms_per_task",
        "spawns_per_task",
        "fsyncs_per_task",
        "fixed_s",
        "spawn_ms",
    ),
    "parallel": (
        "efficiency",
        "one_s",
        "many_s",
        "cpu_per_unit_s",
        "self_per_unit_s",
        "cpu_bound",
    ),
    "resume": ("s", "wall_s", "own_s", "built_s"),
}


def _median(results: list[dict[str, Any]], key: str) -> float:
    return statistics.median(float(r[key]) for r in results)


GOAL_EFFICIENCY = 0.95


def bound_line(runs: list[dict[str, Any]]) -> str:
    """The measured efficiency beside the bound the CPU per extra unit puts on it on this
    machine's cores (`cpu_bound`, see `parallel`), and the CPU per extra unit at which that
    bound would reach the goal: an efficiency near its bound is the cores' limit, not the
    engine's waits; a bound below the goal means no scheduling can reach it here (medians).

    Solved from `cpu_bound` = one_s / (one_s + (units / cores - 1) * cpu_per_unit_s) >= goal:
    cpu_per_unit_s <= one_s * (1 / goal - 1) / (units / cores - 1)."""
    efficiency, bound = _median(runs, "efficiency"), _median(runs, "cpu_bound")
    one, per_unit = _median(runs, "one_s"), _median(runs, "cpu_per_unit_s")
    spread = runs[0]["units"] / runs[0]["cores"] - 1
    allowed = one * (1 / GOAL_EFFICIENCY - 1) / spread if spread > 0 else float("inf")
    return (
        f"efficiency {efficiency:.3f} of at best {bound:.3f} on {runs[0]['cores']} cores "
        f"({efficiency / bound:.0%} of the bound; cpu_per_unit_s {per_unit:.3f}, "
        f"{GOAL_EFFICIENCY} needs <= {allowed:.3f} with a {one:.2f} s unit)"
    )


def report(
    measure: str, results: dict[str, list[dict[str, Any]]], trees: list[str], count: bool
) -> None:
    """One line per figure: each tree's median (and every run's value), and the ratio."""
    print(
        f"== {measure}"
        + (f" ({results['current'][0]['units']} units)" if measure == "parallel" else "")
    )
    for key in MEASURES[measure]:
        cells = []
        for tree in trees:
            runs = ", ".join(f"{float(r[key]):.3g}" for r in results[tree])
            cells.append(f"{tree} {_median(results[tree], key):.3g} [{runs}]")
        line = f"   {key:16} " + "; ".join(cells)
        if len(trees) == 2 and _median(results["baseline"], key):
            ratio = _median(results["current"], key) / _median(results["baseline"], key)
            line += f"; ratio {ratio:.2f}"
        print(line)
    if measure == "parallel":
        for tree in trees:
            print(f"   {tree}: {bound_line(results[tree])}")
    if count and measure == "overhead":
        for tree in trees:
            print(f"   spawns per task by program ({tree}, last run):")
            programs = results[tree][-1]["by_program"]
            for name, extra in sorted(programs.items(), key=lambda kv: -kv[1]):
                print(f"     {extra:5.1f}  {name}")
    if count and measure == "parallel":
        for tree in trees:
            print(f"   per extra unit ({tree}, last run; cpu_ms: the process and its children):")
            counted = results[tree][-1].get("per_extra_unit", {})
            for name, extra in sorted(counted.items(), key=lambda kv: (kv[0][:3], -kv[1])):
                print(f"     {extra:7.1f}  {name}")


def run_all(args: argparse.Namespace, trees: dict[str, Path]) -> int:
    measures = ["overhead"] if args.overhead_only else list(MEASURES)
    results = {m: {name: [] for name in trees} for m in measures}  # type: dict[str, dict[str, list[dict[str, Any]]]]
    for n in range(args.repeat):
        for measure in measures:
            # alternate which tree goes first, so a drift in load hits both alike
            order = list(trees) if n % 2 == 0 else list(reversed(trees))
            for name in order:
                result = measure_in(trees[name], measure, args)
                results[measure][name].append(result)
                # each run's figures as it ends: a long run on a shared machine stopped early
                # still shows what it measured
                figures = ", ".join(f"{k} {float(result[k]):.3g}" for k in MEASURES[measure])
                print(f"   [{n + 1}/{args.repeat}] {measure} {name}: {figures}", file=sys.stderr)
    print(f"load average before the report: {os.getloadavg()}")
    for measure in measures:
        report(measure, results[measure], list(trees), args.count)
    met = _median(results["overhead"]["current"], "ms_per_task") <= 100
    if "parallel" in results:
        met = met and _median(results["parallel"]["current"], "efficiency") >= 0.95
        met = met and _median(results["resume"]["current"], "s") < 2
    print(
        "goals (current tree: <= 100 ms per task, efficiency >= 0.95, resume < 2 s): "
        + ("met" if met else "NOT met")
    )
    return goal(met)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--count", action="store_true")
    parser.add_argument("--overhead-only", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--baseline", metavar="REF")
    parser.add_argument("--child", choices=list(MEASURES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    total = 200 if args.quick else sizes(1000, 8)
    if args.child:
        child(args.child, total)
        return 0
    print(f"load average: {os.getloadavg()}")
    if not args.baseline:
        return run_all(args, {"current": ROOT})
    with tempfile.TemporaryDirectory() as tmp:
        tree = baseline_tree(args.baseline, Path(tmp))
        try:
            return run_all(args, {"current": ROOT, "baseline": tree})
        finally:
            git(ROOT, "worktree", "remove", "--force", str(tree))


if __name__ == "__main__":
    sys.exit(main())
