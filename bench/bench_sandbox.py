"""What the sandbox adds to an agent's start: the same run with and without it, in one run.

Three levels, each run N times without and N times with the sandbox, interleaved so both see
the same machine load:

* `supervise` of `true` and of `python -c pass` (the process itself: bwrap's namespaces,
  mounts and the settle of its group);
* the `command` backend running `python -c pass` (as a scripted agent starts: the program's
  install tree found, the prompt file bound, a seat's HOME made);
* the same through `SandboxedBackend` with a policy, as `mergegate run` starts every agent
  (toolchains, the workspace, a person's paths).

The sandbox probe (`sandbox_problem`, asked once per process) is timed on its own. Figures are
medians, the difference in milliseconds (goal: at most 50 ms added) and the ratio to the run
without the sandbox. Exits 1 when no sandbox can be made here.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _smoke import sizes
from mergegate.agents import AgentRequest
from mergegate.agents.command import CommandBackend
from mergegate.agents.sandbox import SandboxedBackend, SandboxPolicy
from mergegate.processes import Bind, Sandbox, sandbox_problem, supervise

RUNS = sizes(30, 2)
GOAL_MS = 50.0


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def report(label: str, bare: list[float], boxed: list[float]) -> float:
    b, s = statistics.median(bare), statistics.median(boxed)
    added = (s - b) * 1e3
    print(
        f"{label:<34} without {b * 1e3:7.2f} ms | with {s * 1e3:7.2f} ms "
        f"(+{added:6.2f} ms, x{s / b:.2f})"
    )
    return added


def supervise_pair(root: Path, argv: list[str]) -> tuple[list[float], list[float]]:
    python = tuple(Bind(path=p) for p in {Path(sys.prefix), Path(sys.base_prefix)})
    sandbox = Sandbox(binds=(*python, Bind(path=root, writable=True)))
    bare, boxed = [], []
    for _ in range(RUNS):
        bare.append(timed(lambda: supervise(argv, cwd=root)))
        boxed.append(timed(lambda: supervise(argv, cwd=root, sandbox=sandbox)))
    return bare, boxed


def backend_pair(root: Path, policy: bool) -> tuple[list[float], list[float]]:
    backend = CommandBackend(cmd=[sys.executable, "-c", "pass"])
    wrapped = SandboxedBackend(backend, SandboxPolicy(), root / "homes")
    direct = Sandbox(binds=(Bind(path=root, writable=True),), home=root / "home")
    (root / "home").mkdir(exist_ok=True)
    bare, boxed = [], []
    for i in range(RUNS):
        plain = AgentRequest(prompt="x", cwd=root, attempt_dir=root / f"a{i}")
        bare.append(timed(lambda r=plain: backend.run(r)))
        sandboxed = plain.model_copy(update={"attempt_dir": root / f"b{i}"})
        if policy:
            boxed.append(timed(lambda r=sandboxed: wrapped.run(r)))
        else:
            request = sandboxed.model_copy(update={"sandbox": direct})
            boxed.append(timed(lambda r=request: backend.run(r)))
    return bare, boxed


def main() -> int:
    started = time.perf_counter()
    problem = sandbox_problem()
    probe_ms = (time.perf_counter() - started) * 1e3
    if problem is not None:
        print(f"bench_sandbox: no sandbox here: {problem}", file=sys.stderr)
        return 1
    print(f"runs per variant: {RUNS} (medians; goal: at most {GOAL_MS:g} ms added)")
    print(f"{'sandbox probe (once per process)':<34} {probe_ms:7.2f} ms")
    added = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for label, argv in (
            ("true", ["/bin/true"]),
            ("python -c pass", [sys.executable, "-c", "pass"]),
        ):
            added.append(report(f"supervise {label}", *supervise_pair(root, argv)))
        added.append(report("command backend (python)", *backend_pair(root, policy=False)))
        added.append(report("command backend, run's policy", *backend_pair(root, policy=True)))
    worst = max(added)
    verdict = "within" if worst <= GOAL_MS else "OVER"
    print(f"most added: {worst:.2f} ms ({verdict} the {GOAL_MS:g} ms goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
