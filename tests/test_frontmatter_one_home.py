"""One writer of Markdown frontmatter (issue 26, item 4): `mergegate.untrusted.frontmatter`.

The review reports, `VERIFICATION.md`, the engine's task reports and the GSD summaries each
wrote their own block before (JSON-quoted lines three ways, `yaml.safe_dump` a fourth). A
tree walk keeps a block from being built by hand again: outside the home no list of lines
starts with `---` and no string starts with `---` and a newline, but where a file someone
else wrote is edited in its own style.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from mergegate.engine._context.outcomes import UnitOutcome
from mergegate.engine._records.unit_records import unit_summary
from mergegate.untrusted import frontmatter

SRC = Path(__file__).resolve().parents[1] / "src" / "mergegate"
HOME = SRC / "untrusted.py"
EDITORS = {
    SRC / "verify" / "_records.py": "sets `status` in the frontmatter of GSD's own report",
}
"""Files that edit a block someone else wrote, in that writer's style, and why."""

# Keys are the caller's names, never a word YAML 1.1 reads as a boolean or null.
YAML_WORDS = {"yes", "no", "on", "off", "true", "false", "null"}
keys = st.from_regex(r"[a-z][a-z_-]{0,11}", fullmatch=True).filter(lambda k: k not in YAML_WORDS)
# A float YAML reads back as one: JSON writes an exponent without a dot (1e-05), which YAML
# 1.1 takes for text; no value mergegate writes is that small or large.
floats = st.floats(-1e6, 1e6, allow_nan=False).filter(lambda f: f == 0 or abs(f) >= 1e-4)
scalars = st.none() | st.booleans() | st.integers() | floats | st.text()
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)


def _read(text: str) -> Any:
    assert text.startswith("---\n")
    assert text.endswith("\n---\n")
    inner = text[4:-4]
    assert "---" not in inner.splitlines()  # no value can close the block early
    return yaml.safe_load(inner)


def _same(left: object, right: object) -> bool:
    if isinstance(left, float) or isinstance(right, float):
        return (
            isinstance(left, int | float)
            and isinstance(right, int | float)
            and (math.isclose(left, right, rel_tol=1e-12, abs_tol=1e-12))
        )
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    return left == right


@given(st.dictionaries(keys, values, max_size=6))
def test_any_values_read_back_as_written(front: dict[str, object]) -> None:
    read = _read(frontmatter(front))
    assert _same(read if front else {}, front) or (read is None and not front)


@given(st.dictionaries(keys, st.text(), min_size=1, max_size=4), keys)
def test_no_value_adds_a_key(front: dict[str, str], extra: str) -> None:
    hostile = {k: f"{v}\n{extra}: forged\n---\n" for k, v in front.items()}
    assert set(_read(frontmatter(hostile))) == set(front)


def test_empty_collections_read_back_empty_not_null() -> None:
    assert _read(frontmatter({"a": {}, "b": [], "c": [{}], "d": [[]]})) == {
        "a": {},
        "b": [],
        "c": [{}],
        "d": [[]],
    }


def _hand_built(path: Path) -> list[str]:
    """Where `path` builds a frontmatter block itself: a list of lines opening with `---`, or
    a string (constant or f-string) opening with `---` and a newline."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        first: ast.expr | None = None
        if isinstance(node, ast.List) and node.elts:
            first = node.elts[0]
            opens = isinstance(first, ast.Constant) and first.value == "---"
        elif isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            opens = isinstance(first, ast.Constant) and str(first.value).startswith("---\n")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            opens = node.value.startswith("---\n") and len(node.value) > 4
        else:
            continue
        if opens:
            found.append(f"{path.relative_to(SRC)}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_no_frontmatter_is_built_outside_its_home() -> None:
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        if path != HOME and path not in EDITORS and "verdicts" not in path.parts
        for line in _hand_built(path)
    ]
    assert found == [], "write frontmatter with mergegate.untrusted.frontmatter"
    assert _hand_built(HOME), "the walk reads the home's block (else it reads nothing)"
    for path in EDITORS:
        assert _hand_built(path), f"{path} builds no block now: drop its exception"


@pytest.mark.parametrize(
    ("run_id", "phase", "unit"),
    [("2026-01-02", "1.10", "on"), ("r1", "a\\b", "it's"), ("12", "null", "A")],
)
def test_a_unit_summary_reads_back_the_ids_it_names(run_id: str, phase: str, unit: str) -> None:
    """A run named like a date, a phase id with a backslash: written bare or as Python's
    repr, YAML read back a date, a number or another string."""
    rt = SimpleNamespace(
        run_id=run_id,
        unit=lambda _phase, _unit: SimpleNamespace(name="N"),
        record=SimpleNamespace(into="main"),
    )
    out = UnitOutcome(id=unit, phase=phase, status="merged", merge_commit=None)
    text = unit_summary(cast(Any, rt), out)
    front = _read(text[: text.index("\n---\n", 4) + 5])
    assert front == {
        "run_id": run_id,
        "phase": phase,
        "unit": unit,
        "status": "merged",
        "merge_commit": None,
    }
