"""The fleet's run workflow takes and returns models (`FleetRun`, `FleetRunEnd`) and DBOS
records what it recorded when both were dicts: a run queued by the previous code (its input
`{"state_dir": ..., "generation": ...}`) is taken by a worker of this one, and the recorded
output is `{"status": ...}` as before."""

from __future__ import annotations

from typing import Any

from mergegate.engine._fleet.worker import (
    FleetRun,
    FleetRunEnd,
    fleet_finish_step,
    fleet_run_workflow,
)
from mergegate.store import seam_of


def test_a_queued_run_is_recorded_as_the_dict_it_was() -> None:
    previous: dict[str, Any] = {"state_dir": "/state", "generation": 3}
    queued = FleetRun(state_dir="/state", generation=3)
    recorded = seam_of(fleet_run_workflow).dump_args((queued,))
    assert recorded == (previous,)
    assert list(recorded[0]) == list(previous)  # the key order DBOS pickles
    assert seam_of(fleet_run_workflow).load_args((previous,)) == (queued,)


def test_a_generation_s_end_is_recorded_as_the_dict_it_was() -> None:
    for func in (fleet_run_workflow, fleet_finish_step):
        seam = seam_of(func)
        assert seam.dump_out(FleetRunEnd(status="completed")) == {"status": "completed"}
        assert seam.load_out({"status": "escalated"}) == FleetRunEnd(status="escalated")
