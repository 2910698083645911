"""Supervisor overhead per run against a bare `subprocess.run` of the same command.

Each command runs N times bare (`subprocess.run`, output captured) and N times under
`supervise` (own process group, scrubbed env, selector loop, log files, process record,
group sweep), interleaved so both see the same machine load. Also the whole `command`
backend (prompt file, attempt dir, judgement). Figures are ratios to the bare run of the
same command in the same run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _smoke import sizes
from mergegate.agents import AgentRequest
from mergegate.agents.command import CommandBackend
from mergegate.processes import supervise

RUNS = sizes(30, 2)
COMMANDS = {"true": ["true"], "python -c pass": [sys.executable, "-c", "pass"]}


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"runs per variant: {RUNS} (median seconds; ratio to bare subprocess.run)")
        for label, argv in COMMANDS.items():
            backend = CommandBackend(cmd=argv)
            bare, sup, full = [], [], []
            for i in range(RUNS):
                attempt = root / f"{label}-{i}"
                request = AgentRequest(prompt="x", cwd=root, attempt_dir=attempt / "backend")
                bare.append(
                    timed(lambda a=argv: subprocess.run(a, capture_output=True, check=True))
                )
                sup.append(timed(lambda a=argv, d=attempt: supervise(a, cwd=root, attempt_dir=d)))
                full.append(timed(lambda r=request, b=backend: b.run(r)))
            b, s, f = (statistics.median(x) for x in (bare, sup, full))
            print(
                f"{label:<16} bare {b * 1e3:7.2f} ms | supervise {s * 1e3:7.2f} ms "
                f"(x{s / b:.2f}, +{(s - b) * 1e3:.2f} ms) | command backend {f * 1e3:7.2f} ms "
                f"(x{f / b:.2f})"
            )


if __name__ == "__main__":
    main()
