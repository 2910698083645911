"""The state directory's layout is spelled in one module, `mergegate.config._layout` (issue
26, item 4): `StateLayout` (the state directory's folders), `RunLayout` (a run's folder:
phase, unit, verification) and `PhaseDir` (a verify records folder).

Read from the syntax tree of every module under `src/mergegate`, outside the layout module:
no path is joined with the name of one of its folders (`/ "runs"`, `/ "verify"`, …); in the
engine and the store no run folder is joined with an id (`run_dir / phase_id`, `rt.run_dir /
result.id`: `RunLayout` knows where a phase or a unit lives); and no state directory is
found again as the parent of its runs folder (`store.root.parent`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mergegate.config import PhaseDir, RunLayout, StateLayout

SRC = Path(__file__).resolve().parents[1] / "src" / "mergegate"
HOME = SRC / "config" / "_layout.py"
FOLDERS = {
    "runs",
    "reviews",
    "db",
    "verify",
    "sessions",
    "homes",
    "worktrees",
    "workers",
    "mirrors",
    "answers.jsonl",
}
"""The names the layout gives its folders (and the answers ledger)."""
_AN_ID = re.compile(r"(^|[._])(id|\w+_id)$|phase")
"""What names an id: `phase_id`, `unit.id`, `result.id`, `phase`."""
ROOMS = ("engine", "store")
"""Where a run folder is the engine's (review and verify runs keep their own, flat)."""


def _ends_in_run_dir(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id == "run_dir"
    return isinstance(node, ast.Attribute) and node.attr == "run_dir"


def _offences(source: str, where: str) -> list[str]:
    """Each hand-built state path in `source` (the module at `where`, relative to `SRC`)."""
    found = []
    in_rooms = Path(where).parts[0] in ROOMS
    for node in ast.walk(ast.parse(source)):
        at = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            gits = "git_dir" in ast.unparse(node.left)  # git's own `.git/worktrees`
            if not gits and any(
                isinstance(side, ast.Constant) and side.value in FOLDERS
                for side in (node.left, node.right)
            ):
                found.append(f"{at}: a layout folder by hand: {ast.unparse(node)}")
            right = ast.unparse(node.right)
            if in_rooms and _ends_in_run_dir(node.left) and _AN_ID.search(right):
                found.append(f"{at}: a run folder joined with an id: {ast.unparse(node)}")
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "parent"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in {"root", "runs"}
        ):
            found.append(f"{at}: the state directory found again: {ast.unparse(node)}")
    return found


def test_no_state_path_is_built_outside_the_layout_module() -> None:
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        if path != HOME
        for line in _offences(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix())
    ]
    assert found == [], "compose state paths with StateLayout, RunLayout or PhaseDir"


def test_the_home_spells_every_folder_the_walk_looks_for() -> None:
    spelled = {
        n.value
        for n in ast.walk(ast.parse(HOME.read_text(encoding="utf-8")))
        if isinstance(n, ast.Constant)
    }
    assert spelled >= FOLDERS


def test_the_walk_refuses_each_kind_of_hand_built_path() -> None:
    engine = "engine/_steps/x.py"
    samples = [
        ('rt.run_dir / phase_id / "verify" / "g01"', engine),
        ("store.run_dir(record.run_id) / phase_id", engine),
        ("rt.run_dir / result.id / PHASE_FILE", engine),
        ("self.run_dir / phase_id / unit_id", engine),
        ('state / "worktrees" / run_id', "git/_x.py"),
        ("state = store.root.parent", "cli/x.py"),
    ]
    for source, where in samples:
        assert _offences(source, where), source
    # a run folder's own files, and a review run's folder, are not the layout's
    assert _offences("run_dir / EVENTS_FILE", engine) == []
    assert _offences("self.run_dir / stem", "review/stream.py") == []
    assert _offences("self.run_dir / run_id", "review/loop.py") == []
    assert _offences('git_dir / "worktrees"', "git/_snapshot.py") == []


def test_the_layouts_compose_what_the_engine_built_by_hand(tmp_path: Path) -> None:
    run = RunLayout(tmp_path / "runs" / "r1")
    assert run.phase("P1") == tmp_path / "runs" / "r1" / "P1"
    assert run.unit("P1", "A") == tmp_path / "runs" / "r1" / "P1" / "A"
    assert run.verification("P1", 3) == tmp_path / "runs" / "r1" / "P1" / "verify" / "g03"
    assert StateLayout(tmp_path).runs == run.root.parent
    assert PhaseDir(tmp_path / "p").run("v1") == tmp_path / "p" / "runs" / "v1"
    assert PhaseDir(tmp_path / "p").answers == tmp_path / "p" / "answers.jsonl"
