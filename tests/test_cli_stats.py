"""`mergegate stats` and `mergegate report` on runs under the state directory."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from _runs import T0, plan_run, write_run
from mergegate.cli import cli
from mergegate.events import HandoffFinished
from mergegate.metrics import compute_metrics


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return Path(os.environ["MERGEGATE_STATE_DIR"])


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_stats_over_every_run_as_json(state: Path) -> None:
    write_run(state, "20260301-a", plan_run("20260301-a", tasks=2))
    write_run(state, "20260302-b", plan_run("20260302-b", tasks=3, start=T0 + timedelta(days=1)))
    code, out, _ = invoke("stats", "--format", "json")
    assert code == 0
    data = json.loads(out)
    m = data["metrics"]
    assert [r["run_id"] for r in m["runs"]] == ["20260301-a", "20260302-b"]
    assert m["tasks"] == 5
    reviewer = m["components"]["reviewer"]
    # each task: one review operation, malformed then approve
    assert (reviewer["operations"], reviewer["attempts"], reviewer["succeeded"]) == (5, 10, 5)
    assert reviewer["average_retries"] == 1.0
    assert reviewer["failure_types"] == {"malformed": 5}
    assert m["usage"]["tokens_in"] == 1000 * (1 + 2) + 1000 * (1 + 2 + 3) + 10 * 3000
    assert m["merges"] == 5
    assert data["alerts"] == []


def test_stats_since_a_date_and_by_run(state: Path) -> None:
    write_run(state, "old", plan_run("old", tasks=1))
    new_dir = write_run(state, "new", plan_run("new", tasks=2, start=T0 + timedelta(days=10)))
    code, out, _ = invoke("stats", "--since", "2026-03-05", "--format", "json")
    assert code == 0
    assert [r["run_id"] for r in json.loads(out)["metrics"]["runs"]] == ["new"]
    for ref in ("old", str(state / "runs" / "old")):
        code, out, _ = invoke("stats", ref, "--format", "json")
        assert [r["run_id"] for r in json.loads(out)["metrics"]["runs"]] == ["old"]
    code, out, _ = invoke("stats", "old", str(new_dir), "--format", "json")
    assert json.loads(out)["metrics"]["tasks"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["stats", "nope"], "no run 'nope'"),
        (["stats", "--since", "yesterday"], "--since: not a date"),
        (["stats", "a", "--since", "2026-01-01"], "not both"),
        (["report", "../x"], "no run directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(state: Path, args: list[str], message: str) -> None:
    code, _, err = invoke(*args)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_an_invalid_stream_names_its_line(state: Path) -> None:
    run_dir = write_run(state, "r", plan_run("r", tasks=1))
    with (run_dir / "events.jsonl").open("a") as handle:
        handle.write('{"kind": "verdict", "decision": "perhaps"}\n')
    code, _, err = invoke("stats", "r")
    assert code == 2
    assert "events.jsonl:" in err
    assert "decision" in err


def test_stats_without_runs(state: Path) -> None:
    code, out, _ = invoke("stats")
    assert code == 0
    assert "No runs" in out


def test_the_table_shows_runs_components_and_cleans_hostile_names(state: Path) -> None:
    write_run(state, "r1", plan_run("r1", tasks=1))
    code, out, _ = invoke("stats")
    assert code == 0
    for word in ("Runs", "Components", "reviewer", "implementer", "r1", "100.0%", "No alert"):
        assert word in out, word
    # an escape sequence in a component name never reaches the terminal
    evil_id = "r2\x1b]0;pwn\x07"
    evil = [e.model_copy(update={"run_id": evil_id}) for e in plan_run("r2", tasks=1)]
    evil.append(
        HandoffFinished(run_id=evil_id, handoff_type="t\x1b[31mred", final_status="escalated")
    )
    write_run(state, "r2", evil)
    code, out, _ = invoke("stats", "r2")
    assert code == 0
    assert "pwn" not in out  # the whole escape sequence (a window title) is dropped
    assert "handoff:tred" in out  # the colour escape is dropped, the name kept
    assert "\x1b" not in out
    assert "\x07" not in out


def test_prometheus_output_parses_and_matches_the_metrics(state: Path, tmp_path: Path) -> None:
    events = plan_run("r1", tasks=3)
    write_run(state, "r1", events)
    target = tmp_path / "textfile" / "mergegate.prom"
    code, _, _ = invoke("stats", "--prometheus", str(target), "--format", "json")
    assert code == 0
    families = {f.name: f for f in text_string_to_metric_families(target.read_text())}
    m = compute_metrics(events)

    def sample(family: str, **labels: str) -> float:
        for s in families[family].samples:
            if all(s.labels.get(k) == v for k, v in labels.items()) and not s.name.endswith(
                "_created"
            ):
                return float(s.value)
        raise AssertionError(f"{family} {labels} missing")

    assert sample("mergegate_component_operations", component="reviewer") == 3
    assert sample("mergegate_component_attempts", component="reviewer") == 6
    assert sample("mergegate_component_failures", component="reviewer", type="malformed") == 3
    assert sample("mergegate_component_average_retries", component="reviewer") == 1.0
    assert sample("mergegate_agent_tokens", role="implementer", kind="input") == 6000
    assert sample("mergegate_agent_cost_usd", role="implementer") == pytest.approx(0.06)
    assert sample("mergegate_tasks") == m.tasks == 3
    assert sample("mergegate_runs") == 1
    assert families["mergegate_component_operations"].type == "counter"
    assert families["mergegate_component_success_ratio"].type == "gauge"
    assert not list(target.parent.glob("*.prom.*"))  # the temporary file was renamed away


def test_fail_on_alert_changes_the_exit_code(state: Path) -> None:
    events = plan_run("r1", tasks=1)
    assert events[4].kind == "agent.attempt"
    events[4] = events[4].model_copy(update={"duration_s": 301.0})
    write_run(state, "r1", events)
    assert invoke("stats", "r1")[0] == 0
    code, out, _ = invoke("stats", "r1", "--fail-on-alert")
    assert code == 5
    assert "component_timeout" in out
    (Path.cwd() / "mergegate.toml").write_text("[alerts]\nfail_on_alert = true\n")
    assert invoke("stats", "r1")[0] == 5


def test_report_writes_the_page_and_prints_its_path(state: Path, tmp_path: Path) -> None:
    run_dir = write_run(state, "r1", plan_run("r1", tasks=2))
    code, out, _ = invoke("report", "r1")
    assert code == 0
    assert out.strip() == str(run_dir / "report.html")
    assert (run_dir / "report.html").read_text().startswith("<!DOCTYPE html>")
    target = tmp_path / "out" / "page.html"
    code, out, _ = invoke("report", str(run_dir), "--output", str(target))
    assert (code, out.strip()) == (0, str(target))
    assert target.is_file()
