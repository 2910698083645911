"""Smoke mode of the benchmarks: `MERGEGATE_BENCH_SMOKE=1` runs a bench's whole code path on
its smallest sizes, in seconds (tests/test_bench_smoke.py runs every bench so, in CI).

In smoke mode a bench prints its usual report and exits 0 whatever its figures: performance
goals are checked only in full runs. Anything else (an exception, a run that does not complete,
a wrong result) still fails it.
"""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

SMOKE = os.environ.get("MERGEGATE_BENCH_SMOKE") == "1"
REQUIRE_REAL = os.environ.get("MERGEGATE_REQUIRE_REAL") == "1"


def sizes(full: T, smoke: T) -> T:
    """`smoke` in smoke mode, else `full`."""
    return smoke if SMOKE else full


def goal(met: bool) -> int:
    """The exit status for a performance goal: 1 when missed in a full run, 0 in smoke mode."""
    return 0 if met or SMOKE else 1


def skipped() -> int:
    """The exit status of a bench that cannot run here (a missing PostgreSQL, ...): 0, except
    in a smoke run under `MERGEGATE_REQUIRE_REAL=1` (CI), where a skip would hide a rotted
    bench."""
    return 1 if SMOKE and REQUIRE_REAL else 0
