"""Plain progress (`run` and `review --progress plain`) shows a line at least every
`HEARTBEAT_S` while a command goes on (issue 24, item 1: `make demo` printed nothing for
minutes while the local model answered), and the local model's progress comes from its server
without starting one."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from _gitrepo import change_repo
from _plan_runs import agent, invoke, make_plan, repo_with
from _verdict_object import verdict_object
from mergegate.agents import local
from mergegate.agents.local import Generation, generation
from mergegate.cli import _progress, cli
from mergegate.cli._progress import Heartbeat
from mergegate.cli._run_view import _PlainView
from mergegate.engine import RunEvent

FAKE_REVIEWER = Path(__file__).parent / "fakes" / "scripted_agent.py"


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _view(every: float = 9.0, activity: str | None = None) -> tuple[_PlainView, list[str], _Clock]:
    lines: list[str] = []
    clock = _Clock()
    view = _PlainView(Heartbeat(lines.append, lambda: activity, every=every, clock=clock))
    return view, lines, clock


def _step(message: str = "round 1: spec review, attempt 1 (local)") -> RunEvent:
    return RunEvent("step", message, phase="1", unit="1-01", task="1", step="review")


def test_a_silent_step_gets_a_heartbeat_naming_it_and_what_the_model_does() -> None:
    view, lines, clock = _view(activity="the local model has written 143 of at most 1,024 tokens")
    view(_step())
    clock.now += 8.9
    view.heartbeat.tick()
    assert len(lines) == 1  # not yet
    clock.now += 0.2
    view.heartbeat.tick()
    assert len(lines) == 2
    beat = lines[1]
    assert beat.startswith("mergegate: [1-01 1] still working (9 s)")
    assert "spec review, attempt 1 (local)" in beat
    assert beat.endswith("the local model has written 143 of at most 1,024 tokens")
    clock.now += 5
    view.heartbeat.tick()
    assert len(lines) == 2  # the heartbeat counts as a line
    clock.now += 4.1
    view.heartbeat.tick()
    assert len(lines) == 3
    assert "(18 s)" in lines[2]  # since the step started, not since the last heartbeat


def test_an_event_restarts_the_silence_and_token_counts_print_nothing() -> None:
    view, lines, clock = _view()
    view(_step())
    clock.now += 8
    view(RunEvent("usage", "", unit="1-01", task="1", tokens=500))
    view.heartbeat.tick()
    clock.now += 8
    view(_step("round 1: quality review, attempt 1 (local)"))
    view.heartbeat.tick()
    assert len(lines) == 2
    clock.now += 9
    view.heartbeat.tick()
    assert "quality review" in lines[-1]
    assert "(9 s)" in lines[-1]


def test_a_heartbeat_before_any_event_and_untrusted_text_are_one_clean_line() -> None:
    view, lines, clock = _view(activity="model\x1b[2J says\nhi")
    clock.now += 9
    view.heartbeat.tick()
    assert lines == ["mergegate: still working (9 s); model says hi"]
    view(_step("evil\x1b]0;title\x07 step\r\nnext"))
    clock.now += 9
    view.heartbeat.tick()
    assert "\x1b" not in lines[-1]
    assert "\n" not in lines[-1]
    assert "evil step next" in lines[-1]


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.floats(0.0, 0.1), st.booleans()),  # (time to the next tick, an event?)
        min_size=1,
        max_size=400,
    )
)
def test_no_silence_is_longer_than_the_heartbeat_and_one_tick(
    steps: list[tuple[float, bool]],
) -> None:
    view, lines, clock = _view(every=1.0)
    printed = [clock.now]
    for gap, event in steps:
        clock.now += gap
        before = len(lines)
        if event:
            view(_step())
        view.heartbeat.tick()
        if len(lines) > before:
            printed.append(clock.now)
    printed.append(clock.now)
    longest = max(b - a for a, b in itertools.pairwise(printed))
    assert longest <= 1.0 + 0.1 + 1e-9


def test_the_run_command_prints_heartbeats_while_an_agent_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_progress, "HEARTBEAT_S", 0.3)
    repo = repo_with(tmp_path / "repo")
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 2.0}]}})
    rev = agent(tmp_path, "rev")
    plan = make_plan({"P1": {"A": {}}})
    args = ["run", "--repo", str(repo), "--implementer-cmd", impl, "--reviewer-cmd", rev]
    code, _, err = invoke([*args, "--progress", "plain"], plan, tmp_path)
    assert code == 0, err
    beats = [line for line in err.splitlines() if "still working" in line]
    assert beats, err
    assert any(line.startswith("mergegate: [A T1] still working (") for line in beats), beats
    assert any("implementing T1" in line for line in beats), beats


def test_the_review_command_prints_heartbeats_while_its_reviewer_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_progress, "HEARTBEAT_S", 0.3)
    repo = change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"})
    script = tmp_path / "rv.json"
    script.write_text(json.dumps([{"shell": "sleep 2", "text": verdict_object("approve", [])}]))
    reviewer = f"{sys.executable} {FAKE_REVIEWER} {script} {tmp_path / 'rv-state'}"
    args = ["review", "--repo", str(repo), "--report-dir", str(tmp_path / "reports")]
    result = CliRunner().invoke(cli, [*args, "--reviewer-cmd", reviewer, "--progress", "plain"])
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    beats = [n for n, line in enumerate(lines) if "still working (" in line]
    assert beats, result.stderr
    started = next(n for n, line in enumerate(lines) if "quality review, attempt 1" in line)
    assert all(n > started for n in beats)
    assert "round 1: quality review, attempt 1 (command)" in lines[beats[0]]
    assert all(line.startswith("mergegate: ") for line in lines)


@pytest.mark.parametrize(
    ("slots", "expected"),
    [
        (
            [{"is_processing": True, "next_token": [{"n_decoded": 14, "n_remain": 66}]}],
            Generation(14, 80),
        ),
        (
            [{"is_processing": True, "next_token": {"n_decoded": 3, "n_remain": -1}}],
            Generation(3, None),
        ),
        ([{"is_processing": True}], Generation(0, None)),
        (
            [{"is_processing": True, "next_token": [{"n_decoded": "9", "n_remain": True}]}],
            Generation(0, None),
        ),
        ([{"is_processing": False, "next_token": [{"n_decoded": 0, "n_remain": -1}]}], None),
        ({"error": "no slots"}, None),
        ([None, "x", 3], None),
    ],
)
def test_the_busy_slot_is_read_from_any_shape_of_slots(
    slots: object, expected: Generation | None
) -> None:
    assert local._busy_slot(slots) == expected


def test_no_server_means_no_generation_and_none_is_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An earlier test in the session may have left the shared model loaded: this one is about
    # a process without one.
    monkeypatch.setattr(local, "_shared", None)
    assert generation() is None
    assert local._shared is None
