"""The run's `Runtime` is fetched from the process (`current()`) only where nothing can hand it
over: at the DBOS seam, in a `@workflow` or a `@step` (their arguments are recorded, so a
Runtime cannot be one), and in the two fleet functions that find a worker's runtime for the
workflow that calls. Everywhere else a function takes `rt` from its caller (issue 26, item 4).

Read from the syntax tree of every module under `src/mergegate/engine`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "src" / "mergegate" / "engine"
SEAM = {"step", "workflow"}
FETCHERS = {
    ("_fleet/worker.py", "current_fleet"): "a fleet workflow's runtime, checked to be one",
    ("_fleet/worker.py", "_rows_of_caller"): "the rows of whichever run's workflow calls",
}
"""Functions outside the seam that may call `current()`, and why."""


def _decorators(node: ast.FunctionDef) -> set[str]:
    names = set()
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names


def _fetches(node: ast.FunctionDef) -> bool:
    """Whether `node`'s own body (not a nested function's) calls `current()`."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Name)
            and child.func.id == "current"
        ):
            return True
        stack.extend(ast.iter_child_nodes(child))
    return False


def _fetchers_outside_the_seam() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(ENGINE.rglob("*.py")):
        where = path.relative_to(ENGINE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            seam = isinstance(node, ast.FunctionDef) and bool(_decorators(node) & SEAM)
            if isinstance(node, ast.FunctionDef) and not seam and _fetches(node):
                found.add((where, node.name))
    return found


def test_only_the_seam_fetches_the_runtime() -> None:
    outside = _fetchers_outside_the_seam() - set(FETCHERS)
    assert outside == set(), "take `rt: Runtime` from the caller instead of current()"


def test_every_listed_fetcher_still_fetches() -> None:
    assert set(FETCHERS) <= _fetchers_outside_the_seam()
