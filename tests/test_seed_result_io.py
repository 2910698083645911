"""Seed 002's "Agent Result Write" and "Agent Result Read" (issue 25 item 5): the run writes
the implementer's agent-result and reads it back with retries on a transient I/O error, and
the metrics count read failures apart from write failures (and from invalid JSON)."""

from __future__ import annotations

import errno
import json
import pathlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import mergegate.handoff._stored as stored
import mergegate.implementer._results as results
from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.cli import cli


def _fail_once(errno_: int) -> dict[str, int]:
    return {"left": 1, "errno": errno_}


def test_a_transient_read_or_write_error_is_retried_and_counted_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 002, "Agent Result Read (CRITICAL - No Retry)" and "Agent Result Write (CRITICAL -
    No Retry)" ("Add retry wrapper around supervisor's agent result reading"; "Track read
    failures separately from write failures"), with its failure injection ("Agent result
    file corruption"): one EIO on reading `agent-result.json` back and one ENOSPC on writing
    it are tried again, the run merges (exit 0), and `mergegate stats` shows
    `handoff:agent-result.read` and `handoff:agent-result.write` apart, one I/O failure each,
    recovered, while the agent's own JSON handoff (`handoff:agent-result`) shows none."""
    read_fault, write_fault = _fail_once(errno.EIO), _fail_once(errno.ENOSPC)
    real_read = pathlib.Path.read_bytes
    real_write = stored.write_json_atomic

    def flaky_read(self: pathlib.Path) -> bytes:
        if self.name == results.RESULT_FILE and read_fault["left"]:
            read_fault["left"] -= 1
            raise OSError(read_fault["errno"], "Input/output error", str(self))
        return real_read(self)

    def flaky_write(path: Any, obj: Any, **kwargs: Any) -> None:
        if Path(path).name == results.RESULT_FILE and write_fault["left"]:
            write_fault["left"] -= 1
            raise OSError(write_fault["errno"], "No space left on device", str(path))
        real_write(path, obj, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_bytes", flaky_read)
    monkeypatch.setattr(stored, "write_json_atomic", flaky_write)
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert (read_fault["left"], write_fault["left"]) == (0, 0)  # both faults were hit
    stats = CliRunner().invoke(cli, ["stats", out["run_dir"], "--format", "json"])
    assert stats.exit_code == 0, stats.output
    data = json.loads(stats.stdout)
    text = json.dumps(data)
    components = {c["component"]: c for c in _components(data)}
    for name in ("handoff:agent-result.read", "handoff:agent-result.write"):
        assert name in components, text
        assert components[name]["failure_types"] == {"io": 1}
        assert components[name]["succeeded"] == 1
    assert components.get("handoff:agent-result", {}).get("failure_types", {}) == {}


def _components(data: Any) -> list[dict[str, Any]]:
    """The per-component metrics wherever `stats --format json` nests them."""
    found: list[dict[str, Any]] = []
    if isinstance(data, dict):
        if "component" in data and "failure_types" in data:
            found.append(data)
        for value in data.values():
            found += _components(value)
    elif isinstance(data, list):
        for value in data:
            found += _components(value)
    return found
