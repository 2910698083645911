"""The state directory's folder names are persisted: runs recorded earlier are found by them."""

from __future__ import annotations

import re
from pathlib import Path

import mergegate
from mergegate.config import StateLayout
from mergegate.integrations._private_dir import HOOK_SESSIONS, hook_dir
from mergegate.store import RunStore
from mergegate.verify import PhaseDir


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


def test_the_new_folders_keep_their_names() -> None:
    layout = StateLayout(Path("/s"))
    assert layout.homes == Path("/s/homes")
    assert layout.mirror("m") == Path("/s/mirrors/m")
    phase = PhaseDir(Path("/s/verify/p-1/01"))
    assert phase.answers == Path("/s/verify/p-1/01/answers.jsonl")
    assert phase.run("r") == Path("/s/verify/p-1/01/runs/r")
    assert hook_dir("claude-code", {"MERGEGATE_STATE_DIR": "/s"}).child(HOOK_SESSIONS).path == (
        Path("/s/hooks/claude-code/sessions")
    )


_SPELLED = re.compile(r'/ "(?:runs|worktrees|mirrors|homes|sessions|answers\.jsonl)"')
_HOMES = {
    "config/_layout.py",
    "verify/_records.py",
    "git/_snapshot.py",  # `.git/worktrees`: git's own folder, not mergegate's
}


def test_state_folders_are_spelled_only_in_their_homes() -> None:
    """Every path into the state directory's folders is composed by `StateLayout` (or, for a
    phase's verify records, `PhaseDir`), never by joining the folder name again elsewhere."""
    src = Path(mergegate.__file__).parent
    found = [
        f"{path.relative_to(src)}:{number}"
        for path in sorted(src.rglob("*.py"))
        if str(path.relative_to(src)) not in _HOMES
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if _SPELLED.search(line)
    ]
    assert found == []
