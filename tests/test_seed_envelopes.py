"""Seed 002's common envelope for every stored handoff (issue 25 item 2): the implementer's
agent-result, each reviewer's verdict, an advisor consultation and a failed handoff are all
written as `{component, session_id, timestamp, status, data, metadata: {retry_count,
previous_errors}}` by `mergegate.handoff.store_record`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.handoff import Envelope


def _envelope(path: Path) -> dict[str, Any]:
    text = path.read_text()
    Envelope.model_validate_json(text)  # the common envelope, strictly
    data: dict[str, Any] = json.loads(text)
    return data


def test_every_stored_handoff_is_in_the_common_envelope(tmp_path: Path) -> None:
    """Seed 002, "1. Common JSON Envelope Structure" ("All components should use a standard
    JSON envelope for handoffs") and "Standardize JSON Envelope ... Include retry metadata in
    all handoffs": through `mergegate run`, an agent-result asked for once more, each
    reviewer's verdict (one malformed, asked again), and the failed handoff of a task whose
    result stayed invalid are envelopes whose metadata counts the retries and names the
    earlier errors."""
    repo = repo_with(tmp_path / "repo")
    (repo / "mergegate.toml").write_text('[retry]\nmax_attempts = {"agent-result" = 2}\n')
    (repo / ".git" / "info" / "exclude").write_text("mergegate.toml\n")
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    impl = agent(
        tmp_path,
        "impl",
        {
            "A/T1": {"implement": [{"text": "Done, all good."}, {}]},
            "B/T1": {"implement": [{"text": "Done, no JSON."}]},
        },
    )
    rev = agent(tmp_path, "rev", {"A/T1": {"review": [{"text": "Looks fine."}, {}]}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    run_dir = Path(out["run_dir"])
    # the implementer's agent-result, recovered on its second ask
    result = _envelope(run_dir / "P1/A/T1/attempts/01-implementer/result/agent-result.json")
    assert (result["component"], result["status"]) == ("implementer", "success")
    assert result["metadata"]["retry_count"] == 1
    assert result["metadata"]["previous_errors"][0].startswith("no_json")
    assert result["data"]["status"] == "recovered"
    # each reviewer attempt's verdict: the malformed one and the one asked for again
    verdicts = sorted((run_dir / "P1/A/T1/review").glob("r01-*-a*/verdict.json"))
    stored = [_envelope(v) for v in verdicts]
    assert {s["component"] for s in stored} == {"reviewer"}
    retried = [s for s in stored if s["data"]["attempt"] == 2]
    assert retried
    assert retried[0]["metadata"]["retry_count"] == 1
    assert retried[0]["metadata"]["previous_errors"][0].startswith("malformed")
    assert [s["status"] for s in stored if s["data"]["decision"] == "malformed"] == ["failure"]
    # the failed handoff of B's result, kept with its raw outputs
    (failed,) = sorted((run_dir / "failed_handoffs").iterdir())
    kept = _envelope(failed)
    assert (kept["status"], kept["metadata"]["retry_count"]) == ("failure", 1)
    assert kept["data"]["record"]["final_status"] == "escalated"
    assert kept["data"]["outputs"][0] == "Done, no JSON."
