"""bench_run.py's report of parallel efficiency beside what the machine's cores allow (issue
26, item 7): the figure can only be judged against its bound."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import bench_run  # noqa: E402


def _run(efficiency: float, one_s: float, per_unit: float, cores: int = 2) -> dict[str, float]:
    units = 8
    bound = one_s / (one_s + max(0.0, units / cores - 1) * per_unit)  # as the bench does
    return {
        "units": units,
        "cores": cores,
        "one_s": one_s,
        "efficiency": efficiency,
        "cpu_per_unit_s": per_unit,
        "cpu_bound": bound,
    }


def test_the_efficiency_is_printed_beside_its_bound_and_what_the_goal_needs() -> None:
    # 3 s unit, 0.2 CPU-s per extra unit on 2 cores: bound 3 / (3 + 3 * 0.2) = 0.833; 0.95
    # needs at most 3 * (1 / 0.95 - 1) / 3 = 0.053 CPU-s per extra unit
    line = bench_run.bound_line([_run(0.75, 3.0, 0.2)])
    assert "efficiency 0.750 of at best 0.833 on 2 cores" in line
    assert "90% of the bound" in line
    assert "0.95 needs <= 0.053" in line


def test_the_line_reads_medians_of_the_runs() -> None:
    runs = [_run(e, 3.0, 0.2) for e in (0.70, 0.75, 0.90)]
    assert "efficiency 0.750" in bench_run.bound_line(runs)


@pytest.mark.parametrize("cores", [8, 16])
def test_as_many_cores_as_units_bound_nothing(cores: int) -> None:
    line = bench_run.bound_line([_run(0.9, 3.0, 0.2, cores=cores)])
    assert "of at best 1.000" in line
    assert "needs <= inf" in line
