"""Ids and names are composed and read back only in `mergegate.ids` (issue 26, STYLE rule 22).

Read from the syntax tree of every module under `src/mergegate` (so a line break or another
quote does not hide one): outside `mergegate/ids*`, no f-string starts with a branch prefix or
a trailer key, joins an id or a key with `/` (`{run_id}/…`, `{unit.id}/{task.id}`, `{key}/r…`,
`help:{task}/…`), or composes an event key (`g{gen}/…`, or a formatted value joined to an event
name such as `/task.started`, `/escalation`); no string spells a branch prefix (that is how a
name is parsed back); no `.split("/")`/`.partition("/")` is applied to something named as an
id, a branch, a workflow, a task or an attempt; no `"/" in run` checks a run's name or an id by
hand.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "mergegate"

PREFIXES = ("mergegate/", "mergegate-unit", "mergegate-wip", "mergegate-merge", "Mergegate-")
"""What a composed branch name or trailer starts with."""
_ID_VALUE = re.compile(r"(^|[._])(id|key|task|wf|workflow)$")
"""A formatted value that is an id, a key or a workflow id (`run_id`, `unit.id`, `key`, `task`)."""
_NAMED_ID = re.compile(r"(^|_)(id|ids|key)($|_)|branch|wf|workflow|task|attempt", re.I)
_SPLITS = {"split", "rsplit", "partition", "rpartition"}
_EVENT_TAIL = re.compile(
    r"/(?:(?:run|phase|unit|task)\.[a-z]+|escalation|merge|verification|wave-)"
)
"""The end of an event key, all of a constant part: `/<kind>.<what>` (`/task.started`), or
one of the engine's undotted event names."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants (they may describe a format; they do not make one)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def _event_key_offence(node: ast.JoinedStr) -> str | None:
    """`g{gen}/…` (a generation leading a key), or a formatted value then `/<event name>`."""
    parts = node.values
    lead = [p.value if isinstance(p, ast.Constant) else None for p in parts[:3]]
    if (
        len(parts) >= 3
        and lead[0] == "g"
        and isinstance(parts[1], ast.FormattedValue)
        and str(lead[2] or "").startswith("/")
    ):
        return f"an f-string composes an event key: {ast.unparse(node)}"
    for left, right in itertools.pairwise(parts):
        if (
            isinstance(left, ast.FormattedValue)
            and isinstance(right, ast.Constant)
            and _EVENT_TAIL.fullmatch(str(right.value))
        ):
            return f"an f-string composes an event key: {ast.unparse(node)}"
    return None


def _fstring_offence(node: ast.JoinedStr) -> str | None:
    parts = node.values
    first = parts[0] if parts else None
    if isinstance(first, ast.Constant) and str(first.value).startswith(PREFIXES):
        return f"an f-string composes a name: {ast.unparse(node)}"
    found = _event_key_offence(node)
    if found is not None:
        return found
    for left, right in itertools.pairwise(parts):
        if (
            isinstance(left, ast.FormattedValue)
            and _ID_VALUE.search(ast.unparse(left.value))
            and isinstance(right, ast.Constant)
            and str(right.value).startswith("/")
        ):
            return f"an f-string joins an id with '/': {ast.unparse(node)}"
    return None


def _split_offence(node: ast.Call) -> str | None:
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in _SPLITS and node.args):
        return None
    sep = node.args[0]
    if not (isinstance(sep, ast.Constant) and sep.value == "/"):
        return None
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", ast.unparse(func.value))
    if any(_NAMED_ID.search(name) for name in names):
        return f"an id or name split by '/': {ast.unparse(node)}"
    return None


_RUN_NAME = re.compile(r"(^|_)run($|_)")


def _check_offence(node: ast.Compare) -> str | None:
    """`"/" in run`: a run's name (or an id) checked by hand, not by `ids.check_component`."""
    left = node.left
    if not (isinstance(left, ast.Constant) and left.value == "/" and node.comparators):
        return None
    if not isinstance(node.ops[0], ast.In | ast.NotIn):
        return None
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", ast.unparse(node.comparators[0]))
    if any(_RUN_NAME.search(name) or _NAMED_ID.search(name) for name in names):
        return f"a name checked by hand (use ids.check_component): {ast.unparse(node)}"
    return None


def offences(root: Path) -> Iterator[str]:
    """Every place under `root` (outside `ids.py`, `ids/`) that composes or splits an id."""
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in {"ids.py", "ids"}:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            found = None
            if isinstance(node, ast.JoinedStr):
                found = _fstring_offence(node)
            elif isinstance(node, ast.Call):
                found = _split_offence(node)
            elif isinstance(node, ast.Compare):
                found = _check_offence(node)
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and node.value.startswith(PREFIXES)
            ):
                found = f"a string spells a name's prefix: {node.value!r}"
            if found is not None:
                yield f"{rel}:{getattr(node, 'lineno', '?')}: {found}"


def test_ids_are_composed_and_split_only_in_mergegate_ids() -> None:
    found = sorted(set(offences(SRC)))
    assert found == [], "compose and read ids with mergegate.ids:\n" + "\n".join(found)


def test_the_check_finds_each_kind_of_offence(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        '"""mergegate-unit/<run>/<unit> in a docstring is fine."""\n'
        'a = f"mergegate-unit/{run}/{unit}"\n'
        'b = f"{rt.run_id}/g{gen}"\n'
        'c = wf_id.split("/")\n'
        'd = unit_branch.partition("/")\n'
        'e = head == "mergegate-wip"\n'
        'f = f"Mergegate-Unit: {x}"\n'
        'g = path.split("/")\n'
        'h = f"{unit.id}/{task.id}/task.started"\n'
        'i = f"g{gen}/{unit.id}/unit.started"\n'
        'j = f"{key}/escalation"\n'
        'k = f"g{generation:02d}"\n'
        'm = f"g{gen}/{phase.id}/wave-{number}"\n'
        'n = f"--answer {unit.id}/{task.id}=approve"\n'
        'o = f"{out.id}/TASK"\n'
        'p = f"{key}/r{fix_round:02d}"\n'
        'q = record.attempt.split("/")\n'
        'r = task.strip("/").split("/")\n'
        's = f"{where}/{keyword}/{i}"\n'
        't = f"{root}/{name}"\n'
        'u = f"help:{task}/{number}"\n'
        'v = "/" in run or run.startswith(".")\n'
        'w = "/" not in rt.run_id\n'
        'x = "/" in raw\n',
        encoding="utf-8",
    )
    lines = [line.split(":")[1] for line in offences(tmp_path)]
    assert sorted(set(lines), key=int) == [
        *("2", "3", "4", "5", "6", "7", "9", "10", "11", "13"),
        *("14", "15", "16", "17", "18", "21", "22", "23"),
    ]
