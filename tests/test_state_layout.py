"""The state directory's folder names are persisted: runs recorded earlier are found by them."""

from __future__ import annotations

from pathlib import Path

from mergegate.config import StateLayout
from mergegate.store import RunStore


def test_the_folder_names_do_not_move() -> None:
    layout = StateLayout(Path("/s"))
    assert layout.runs == Path("/s/runs")
    assert layout.reviews == Path("/s/reviews")
    assert layout.databases == Path("/s/db")
    assert layout.verify == Path("/s/verify")
    assert layout.sessions == Path("/s/sessions")
    assert layout.worktrees("r1") == Path("/s/worktrees/r1")
    assert layout.worker("w") == Path("/s/workers/w")


def test_the_run_store_composes_through_the_layout(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    assert store.run_dir("r1") == tmp_path / "runs" / "r1"
    assert store.database_path("r1") == tmp_path / "db" / "r1.sqlite"
