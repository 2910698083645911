"""What a run persists, read back machine-independently: for golden tests of the engine's
recorded bytes (`tests/test_dbos_seam.py`, `tests/test_persisted_golden.py`).

DBOS's tables (each workflow's inputs and output, each step's output: pickles, unpickled),
mergegate's own rows (the run's card and plan, its state rows, its records) and the files
written for people (cards, summaries, task reports) — with paths, commits, ids, times and
durations replaced by placeholders (a tuple stays distinguishable from a list)."""

from __future__ import annotations

import base64
import json
import pickle
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "Placeholders",
    "dbos_stored",
    "dbos_workflows",
    "files_stored",
    "rows_stored",
    "unpickle",
]

_SHA = re.compile(r"\b[0-9a-f]{40}\b")
_SHORT_SHA = re.compile(r"`[0-9a-f]{12}`")
_UUID = re.compile(
    r"\b(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"
)
_REVIEW = re.compile(r"\bmg-[0-9a-f]+\b")
_WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
_MACHINE_INTS = frozenset({"inode", "device", "pid"})
_MACHINE_TEXTS = frozenset({"tree"})
"""A workspace's tree stamp: made of inode numbers and times."""

_FLOWS = (
    "workflow_status JOIN workflow_input USING (workflow_uuid) "
    "LEFT JOIN workflow_output USING (workflow_uuid)"
)
"""DBOS 3.4 keeps a workflow's inputs and output in tables of their own."""
_COLUMNS = "workflow_input.inputs, workflow_output.output"


def unpickle(text: str | None) -> Any:
    return None if text is None else pickle.loads(base64.b64decode(text))


_TESTS = Path(__file__).resolve().parent
"""This checkout's tests folder: the scripted agents' commands name it."""


class Placeholders:
    """Machine-specific strings replaced by placeholders; types kept visible."""

    def __init__(self, tmp: Path, run_id: str, *, times: bool = False) -> None:
        self.tmp, self.run_id, self.times = str(tmp), run_id, times

    def text(self, value: str) -> str:
        escaped = self.tmp.replace("_", "\\_")  # as markdown escapes it
        value = value.replace(self.tmp, "<tmp>").replace(escaped, "<tmp>")
        # the test's own programs: where the checkout and its interpreter are
        value = value.replace(sys.executable, "<python>").replace(str(_TESTS), "<tests>")
        value = value.replace(self.run_id, "<run>")
        value = _REVIEW.sub("mg-<id>", value)
        value = _UUID.sub("<uuid>", _SHA.sub("<sha>", value))
        if self.times:
            value = _SHORT_SHA.sub("`<short>`", _WHEN.sub("<when>", value))
        return value

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                self.text(str(k)): "<int>"
                if k in _MACHINE_INTS
                else "<text>"
                if k in _MACHINE_TEXTS
                else self(v)
                for k, v in value.items()
            }
        if isinstance(value, (tuple, list)):
            items = [self(v) for v in value]
            return {"<tuple>": items} if isinstance(value, tuple) else items
        return self.scalar(value)

    def scalar(self, value: Any) -> Any:
        if isinstance(value, float):
            return "<float>"
        if isinstance(value, str):
            return self.text(value)
        if value is None or isinstance(value, (bool, int)):
            return value
        return f"<{type(value).__name__}>"


def dbos_workflows(database: Path) -> list[tuple[str, Any, Any]]:
    """Each workflow's name, inputs and output as DBOS stored them (unpickled, unchanged)."""
    with sqlite3.connect(database) as conn:
        rows = conn.execute(f"SELECT name, {_COLUMNS} FROM {_FLOWS}").fetchall()
    return [(name, unpickle(inputs), unpickle(output)) for name, inputs, output in rows]


def dbos_stored(database: Path, clean: Placeholders) -> dict[str, Any]:
    """Every workflow's inputs and output, and every step's output, as the database holds
    them (pickled by DBOS), in a stable order."""
    with sqlite3.connect(database) as conn:
        flows = conn.execute(
            f"SELECT workflow_uuid, name, {_COLUMNS} FROM {_FLOWS} ORDER BY workflow_uuid"
        ).fetchall()
        steps = conn.execute(
            "SELECT workflow_uuid, function_id, function_name, output FROM operation_outputs "
            "ORDER BY workflow_uuid, function_id"
        ).fetchall()
    return {
        "workflows": [
            {
                "id": clean.text(wf_id),
                "name": name,
                "inputs": clean(unpickle(inputs)),
                "output": clean(unpickle(output)),
            }
            for wf_id, name, inputs, output in flows
        ],
        "steps": [
            {
                "workflow": clean.text(wf_id),
                "n": number,
                "name": name,
                "output": clean(unpickle(output)),
            }
            for wf_id, number, name, output in steps
        ],
    }


def _json_text(raw: str, clean: Placeholders) -> Any:
    """A JSON text's value with placeholders, and whether its key order and spelling are
    json's own (`raw` kept verbatim otherwise)."""
    value = json.loads(raw)
    return {"json": clean(value), "order": list(_keys(value))}


def _keys(value: Any, prefix: str = "") -> list[str]:
    """Every key path, in order: the recorded key order is part of the bytes."""
    if isinstance(value, dict):
        found = []
        for k, v in value.items():
            found.append(f"{prefix}/{k}")
            found += _keys(v, f"{prefix}/{k}")
        return found
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _keys(v, f"{prefix}/{i}")]
    return []


def rows_stored(database: Path, clean: Placeholders) -> dict[str, Any]:
    """mergegate's own rows of the run: its card and plan, its state rows and its records
    (value and markdown), in a stable order."""
    with sqlite3.connect(database) as conn:
        runs = conn.execute("SELECT card, plan FROM mergegate_runs ORDER BY run_id").fetchall()
        state = conn.execute(
            "SELECT kind, key, value FROM mergegate_run_state ORDER BY kind, key"
        ).fetchall()
        records = conn.execute(
            "SELECT kind, key, record, markdown FROM mergegate_records ORDER BY kind, key"
        ).fetchall()
    return {
        "runs": [
            {"card": _json_text(card, clean), "plan": _json_text(plan, clean)}
            for card, plan in runs
        ],
        "state": [
            {"kind": kind, "key": clean.text(key), "value": _json_text(value, clean)}
            for kind, key, value in state
        ],
        "records": [
            {
                "kind": kind,
                "key": clean.text(key),
                "value": _json_text(value, clean),
                "markdown": clean.text(markdown).splitlines(),
            }
            for kind, key, value, markdown in records
        ],
    }


def files_stored(run_dir: Path, clean: Placeholders) -> dict[str, Any]:
    """The files written for people in the run's folder and its units' folders (cards,
    summaries, task reports; not the agents' attempt folders), by path."""
    found: dict[str, Any] = {}
    for path in sorted(run_dir.rglob("*")):
        rel = path.relative_to(run_dir)
        if not path.is_file() or len(rel.parts) > 3 or path.suffix not in (".json", ".md"):
            continue
        text = path.read_text()
        if path.suffix == ".json":
            found[str(rel)] = _json_text(text, clean)
        else:
            found[str(rel)] = clean.text(text).splitlines()
    return found
