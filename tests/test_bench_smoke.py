"""Every bench script runs to completion in smoke mode (`MERGEGATE_BENCH_SMOKE=1`, see
bench/_smoke.py): its whole code path on its smallest sizes, its performance goals not checked.
A bench nobody runs rots (issue 26); these runs keep `make bench` working.

bench_gate_value.py has its own smoke test (tests/test_bench_gate_value.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
OWN_TESTS = {"bench_gate_value.py": "tests/test_bench_gate_value.py"}
SMOKED = sorted(p.name for p in BENCH.glob("bench_*.py") if p.name not in OWN_TESTS)
TIMEOUT_S = 300


def test_every_bench_has_a_smoke_run() -> None:
    found = {p.name for p in BENCH.glob("bench_*.py")}
    assert found == set(SMOKED) | set(OWN_TESTS)
    assert len(SMOKED) >= 17  # the glob found the benches (not an empty folder)
    for test in OWN_TESTS.values():
        assert (ROOT / test).is_file()


@pytest.mark.slow
@pytest.mark.parametrize("script", SMOKED)
def test_bench_runs_in_smoke_mode(script: str) -> None:
    env = {**os.environ, "MERGEGATE_BENCH_SMOKE": "1"}
    done = subprocess.run(
        [sys.executable, str(BENCH / script)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"{script} exited {done.returncode}:\n{done.stderr[-4000:]}"
    assert done.stdout.strip(), f"{script} printed nothing:\n{done.stderr[-4000:]}"


@pytest.mark.slow
def test_bench_startup_runs_against_a_baseline_tree() -> None:
    """`bench_startup.py --baseline SRC` interleaves a second tree (here this one's own)."""
    env = {**os.environ, "MERGEGATE_BENCH_SMOKE": "1"}
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_startup.py"), "--baseline", str(ROOT / "src")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "hook review (PostToolUse) [baseline]:" in done.stdout
