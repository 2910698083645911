"""The native plan format: round trip for every model, hand-written files, and refusals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergegate.plans import (
    AcceptanceCriterion,
    Artifact,
    Check,
    FileChange,
    KeyLink,
    MustHaves,
    Phase,
    Plan,
    PlanError,
    PlanFormat,
    SourceRef,
    Step,
    Task,
    Unit,
    Verify,
    check_plan,
    dump_native,
    load_plan,
    read_native,
)
from mergegate.plans._document import Document

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plans.md"

# Any text a plan file can carry: every code point except lone surrogates (not UTF-8).
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
short = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
opt = st.none() | text
ints = st.integers(min_value=-(2**40), max_value=2**40)
json_values = st.recursive(
    st.none() | st.booleans() | ints | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(short, inner, max_size=3),
    max_leaves=8,
)
extras = st.dictionaries(short, json_values, max_size=3)
sources = st.none() | st.builds(SourceRef, file=text, line=st.integers(1, 10**6))
checks = st.builds(
    Check,
    run=text,
    expect_exit=st.integers(0, 255),
    timeout_s=st.none() | st.floats(0.001, 1e6),
    expect=text,
    expect_failure=st.booleans(),
    source=sources,
)
criteria = st.builds(AcceptanceCriterion, id=st.none() | short, text=text, source=sources)
tup = lambda strategy, n=3: st.lists(strategy, max_size=n).map(tuple)  # noqa: E731
verifies = st.builds(Verify, text=text, commands=tup(checks, 2))
must_haves = st.builds(
    MustHaves,
    truths=tup(text),
    artifacts=tup(
        st.builds(
            Artifact,
            path=text,
            provides=opt,
            min_lines=st.none() | st.integers(0, 10**6),
            contains=opt,
            exports=tup(short),
            source=sources,
        ),
        2,
    ),
    key_links=tup(
        st.builds(
            KeyLink,
            from_=text,
            to=text,
            via=opt,
            pattern=opt,
            source=sources,
        ),
        2,
    ),
)
tasks = st.builds(
    Task,
    id=short,
    name=text,
    type=st.sampled_from(["auto", "checkpoint:human-verify", "checkpoint:decision"]) | short,
    files=tup(text),
    file_changes=tup(
        st.builds(FileChange, path=text, action=short, lines=st.none() | short, to=opt), 2
    ),
    read_first=tup(text, 2),
    action=text,
    behavior=text,
    steps=tup(st.builds(Step, title=text, checks=tup(checks, 2), source=sources), 2),
    verify=verifies,
    done=text,
    checks=tup(checks, 2),
    acceptance_criteria=tup(criteria, 2),
    source=sources,
    extra=extras,
)
units = st.builds(
    Unit,
    id=short,
    name=text,
    wave=st.none() | st.integers(0, 50),
    depends_on=tup(short),
    files=tup(text),
    requirements=tup(short),
    must_haves=must_haves,
    acceptance_criteria=tup(criteria, 2),
    success_criteria=tup(criteria, 2),
    verification=verifies,
    boundaries=tup(text, 2),
    objective=text,
    autonomous=st.booleans(),
    completed=st.booleans(),
    tasks=tup(tasks, 2),
    source=sources,
    extra=extras,
)
phases = st.builds(
    Phase,
    id=short,
    name=text,
    goal=text,
    success_criteria=tup(criteria, 2),
    requirements=tup(short),
    units=tup(units, 2),
    directory=opt,
    verification_status=opt,
    source=sources,
    extra=extras,
)
plans = st.builds(
    Plan,
    format=st.sampled_from(list(PlanFormat)),
    title=text,
    phases=tup(phases, 2),
    source=sources,
    extra=extras,
)


def _read(text_: str, name: str = "plan.yaml") -> Plan:
    return read_native(Document.from_text(name, text_))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(plans)
def test_any_plan_round_trips_through_the_native_format(plan: Plan) -> None:
    assert _read(dump_native(plan)) == plan


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "01",
                "1",
                "14.10",
                "no",
                "yes",
                "true",
                "null",
                "~",
                "0x1F",
                "1e3",
                "-0",
                "+1",
                "",
                " x",
                "a: b",
                "#c",
                "'q'",
                '"d"',
                "[x]",
                "{y}",
                "*a",
                "&b",
                "!t",
                "%p",
                "@at",
                "`bt`",
                "|",
                ">",
                "-",
                "? q",
            ]
        ),
        min_size=1,
        max_size=5,
    )
)
def test_tricky_scalars_stay_text(values: list[str]) -> None:
    plan = Plan(
        format=PlanFormat.NATIVE,
        phases=(
            Phase(
                id=values[0],
                name=" ".join(values),
                units=(Unit(id=values[-1], depends_on=tuple(values)),),
            ),
        ),
    )
    assert _read(dump_native(plan)) == plan


def _docs_example() -> str:
    match = re.search(
        r"```yaml\n(mergegate_plan: 1\n.*?)```", DOCS.read_text(encoding="utf-8"), re.S
    )
    assert match, "docs/plans.md lost its complete native example"
    return match.group(1)


def test_documented_example_is_valid_and_clean(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(_docs_example(), encoding="utf-8")
    result = load_plan(path)
    plan = result.plan
    assert plan.format == PlanFormat.NATIVE
    assert result.warnings == ()
    assert plan.phases
    assert all(unit.tasks for _, unit in plan.units())
    # Every element points at its own line of the hand-written file.
    lines = path.read_text(encoding="utf-8").splitlines()
    for unit, task in plan.tasks():
        assert unit.source is not None
        assert task.source is not None
        assert task.source.file == "plan.yaml"
        assert task.name in "\n".join(lines[task.source.line - 1 : task.source.line + 2])
    assert [i for i in check_plan(plan) if i.severity == "error"] == []


def test_hand_written_shorthands_and_sources() -> None:
    plan = _read(
        "mergegate_plan: 1\n"
        "title: Small\n"
        "phases:\n"
        "  - id: 01\n"
        '    success_criteria: ["it works"]\n'
        "    units:\n"
        "      - id: 01-01\n"
        "        wave: 1\n"
        "        tasks:\n"
        "          - id: 1\n"
        "            name: Do it\n"
        "            verify:\n"
        '              commands: ["pytest -q"]\n'
        "            checks:\n"
        "              - run: make check\n"
        "                timeout_s: 2.5\n"
    )
    phase = plan.phases[0]
    assert phase.id == "01"  # not the integer 1
    assert phase.source == SourceRef(file="plan.yaml", line=4)
    assert phase.success_criteria[0].text == "it works"
    task = phase.units[0].tasks[0]
    assert task.id == "1"
    assert task.source == SourceRef(file="plan.yaml", line=10)
    assert task.verify.commands[0].run == "pytest -q"
    assert task.verify.commands[0].source == SourceRef(file="plan.yaml", line=13)
    assert task.checks[0].timeout_s == 2.5
    assert plan.format == PlanFormat.NATIVE


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ("title: x\n", 1, "mergegate_plan"),
        ("mergegate_plan: 2\n", 1, "version"),
        ("mergegate_plan: 1\nphases:\n  - id: a\n    id: b\n", 4, "duplicate key 'id'"),
        ("mergegate_plan: 1\nbase: &a {x: 1}\nother: *a\n", 3, "aliases"),
        ("mergegate_plan: 1\nphases: [\n", 3, "not valid YAML"),
        ("mergegate_plan: 1\nphases:\n  - id: p\n    units:\n      - name: no id\n", 5, "id"),
        ("mergegate_plan: 1\nphases:\n  - id: p\n    colour: red\n", 3, "colour"),
        (
            "mergegate_plan: 1\nphases:\n  - id: p\n    units:\n      - id: u\n"
            "        wave: soon\n",
            5,
            "wave",
        ),
    ],
)
def test_broken_native_files_are_one_error_with_the_line(body: str, line: int, words: str) -> None:
    with pytest.raises(PlanError) as caught:
        _read(body)
    assert caught.value.file == "plan.yaml"
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"plan.yaml:{line}: ")


def test_yaml_that_is_not_a_plan_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ci.yml"
    path.write_text("on: push\njobs: {}\n", encoding="utf-8")
    with pytest.raises(PlanError, match=r"ci\.yml:1: .*not a mergegate plan"):
        load_plan(path)


def test_exported_gsd_plan_keeps_its_sources(shared_dir: Path, tmp_path: Path) -> None:
    tree = shared_dir / "corpus" / "plans" / "gsd" / "FlorianRiquelme__ssherpa" / ".planning"
    plan = load_plan(tree).plan
    path = tmp_path / "exported.yaml"
    path.write_text(dump_native(plan), encoding="utf-8")
    again = load_plan(path).plan
    assert again == plan
    assert again.format == PlanFormat.GSD  # where it came from, not where it was saved
