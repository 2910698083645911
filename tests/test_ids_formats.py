"""Every id and name mergegate composes reads back as what it was made from (`mergegate.ids`),
keeps the bytes earlier runs persisted, and a part that could smuggle a `/`, an empty part,
`..` or whitespace into a composed id is refused."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _id_strategies import components, run_ids
from mergegate.decisions import ExitCode
from mergegate.errors import MergegateError, UsageError
from mergegate.git import wip_branch
from mergegate.ids import (
    APP,
    FLEET_APP,
    QUEUE,
    RUN_QUEUE,
    EventId,
    EventKey,
    IdError,
    Trailer,
    TrailerLine,
    UnitBranch,
    WorkflowId,
    app_name_for_run,
    app_version,
    carrier_branch,
    check_component,
    event_id,
    integration_branch,
    new_check_run_id,
    new_run_id,
    parse_check_run_id,
    parse_run_id,
    phase_check_run_id,
    queue_for_run,
    run_app_version,
)
from mergegate.plans import (
    MustHaves,
    Phase,
    Plan,
    PlanFormat,
    Task,
    Unit,
    require_runnable,
)
from mergegate.plans._ids import id_problem

generations = st.integers(1, 10**6)

# what may not stand in a component: each makes a composed id ambiguous or a branch git refuses
BAD_COMPONENTS = ["", "a/b", "/a", "a/", "..", "a..b", " a", "a b", "a\tb", "a\n", ".a",
                  "-a", "a.", "a.lock", "a:b", "a~1", "a^", "a?", "a*", "a[", "a\\b",
                  "é"]  # fmt: skip


def test_the_persisted_bytes_are_the_ones_earlier_runs_wrote() -> None:
    run = "20260101-120000-abcd"
    assert WorkflowId.run(run, 2).format() == f"{run}/g2"
    assert WorkflowId.generation_child(run, 2, "01-01").format() == f"{run}/g2/01-01"
    assert WorkflowId.task(run, "A", "T1").format() == f"{run}/A/T1"
    assert WorkflowId.task(run, "A", "T1", "retry-g3").format() == f"{run}/A/T1/retry-g3"
    assert WorkflowId.fleet_run(run, 4).format() == f"{run}/fleet/g4"
    assert WorkflowId.of_run(run) == f"{run}/"
    assert WorkflowId.of_generations(run) == f"{run}/g"
    assert WorkflowId.of_fleet_runs(run) == f"{run}/fleet/"
    assert event_id(run, "g1/run.started") == f"{run}/g1/run.started"
    assert event_id(run, EventKey.of_run(1, "run.started")) == f"{run}/g1/run.started"
    assert EventKey.of_task("A", "T1", "task.started").format() == "A/T1/task.started"
    assert EventKey.of_task("A", "CP1", "task.finished", 2).format() == "g2/A/CP1/task.finished"
    assert EventKey.of_unit(3, "A", "unit.started").format() == "g3/A/unit.started"
    assert EventKey.of_unit(3, "A", "escalation").format() == "g3/A/escalation"
    assert EventKey.of_phase(1, "01", "wave-2").format() == "g1/01/wave-2"
    assert EventKey.of_phase(1, "01", "verification").format() == "g1/01/verification"
    assert integration_branch(run) == f"mergegate/{run}"
    assert UnitBranch(run, "A").format() == f"mergegate-unit/{run}/A"
    assert UnitBranch(run, "A").progress() == f"mergegate-wip/{run}/A"
    assert carrier_branch(run, "01-verification") == f"mergegate-merge/{run}/01-verification"
    assert TrailerLine.unit(run, "A").format() == f"Mergegate-Unit: {run}/A"
    assert TrailerLine.summary(run, "A").format() == f"Mergegate-Summary: {run}/A"
    assert TrailerLine.verification(run, "01", 3).format() == (
        f"Mergegate-Verification: {run}/01/g03"
    )
    assert TrailerLine(Trailer.TASK, f"{run}/A/T1").format() == f"Mergegate-Task: {run}/A/T1"
    assert TrailerLine.fix(f"{run}/A/T1", "checks-01").format() == (
        f"Mergegate-Fix: {run}/A/T1/checks-01"
    )
    assert phase_check_run_id(run, "01", 2) == f"{run}-01-g02"
    assert (APP, FLEET_APP, QUEUE, RUN_QUEUE) == (
        "mergegate",
        "mergegate-fleet",
        "mergegate-units",
        "mergegate-runs",
    )
    assert app_name_for_run("20260101-120000-ABCD") == "mergegate-run-20260101-120000-abcd"
    assert app_version("1.2.3", 5) == "mergegate-1.2.3-e5"
    assert run_app_version("mergegate-1.2.3-e5", run) == f"mergegate-1.2.3-e5-run-{run}"
    assert queue_for_run(run) == f"mergegate-units-{run}"


def test_new_ids_parse_as_their_kind() -> None:
    assert parse_run_id(new_run_id())
    assert parse_check_run_id(new_check_run_id())
    for wrong in ("", "20260101-120000", "20260101-120000-abcd/x", "deadbeef0000 "):
        with pytest.raises(IdError):
            parse_run_id(wrong)
        with pytest.raises(IdError):
            parse_check_run_id(wrong)


@given(run_ids)
def test_run_id_round_trip(run: str) -> None:
    assert parse_run_id(run) == run


@given(st.from_regex(r"[0-9a-f]{12}", fullmatch=True))
def test_check_run_id_round_trip(check: str) -> None:
    assert parse_check_run_id(check) == check


@given(run_ids, components, components, st.one_of(st.just(""), components), generations)
def test_workflow_ids_round_trip(run: str, unit: str, task: str, again: str, gen: int) -> None:
    made = [
        WorkflowId.run(run, gen),
        WorkflowId.generation_child(run, gen, unit),
        WorkflowId.task(run, unit, task, again),
        WorkflowId.fleet_run(run, gen),
    ]
    for wf in made:
        assert WorkflowId.parse(wf.format()) == wf
        assert WorkflowId.run_of(wf.format()) == run
        assert wf.format().startswith(WorkflowId.of_run(run))
    assert made[0].generation == made[1].generation == made[3].generation == gen
    assert made[1].generation_child_id == unit
    assert made[0].generation_child_id is None
    assert made[3].generation_child_id is None


@given(run_ids, st.text(min_size=1, max_size=40).filter(lambda k: not any(c.isspace() for c in k)))
def test_event_ids_round_trip(run: str, key: str) -> None:
    if not key.isprintable():
        with pytest.raises(IdError):
            EventId(run, key)
        return
    assert EventId.parse(event_id(run, key)) == EventId(run, key)


event_names = st.from_regex(r"[a-z][a-z0-9]{0,8}([._-][a-z0-9]{1,8}){0,2}", fullmatch=True)
places = st.lists(components, max_size=2).filter(
    lambda p: not p or re.fullmatch(r"g[0-9]+", p[0]) is None
)


@given(event_names, places, st.one_of(st.none(), generations))
def test_event_keys_round_trip(name: str, place: list[str], gen: int | None) -> None:
    key = EventKey(name, tuple(place), gen)
    assert EventKey.parse(key.format()) == key
    assert EventId.parse(event_id("20260101-120000-abcd", key)).key == key.format()


@pytest.mark.parametrize("bad", ["", "Task.Started", "task started", "a/b", "x..", "-x"])
def test_an_event_name_that_breaks_the_key_is_refused(bad: str) -> None:
    with pytest.raises(IdError):
        EventKey(bad, ("A",), 1)


@pytest.mark.parametrize("bad", ["", "a/b", "x..", "-x", "a b"])
def test_an_event_place_that_breaks_the_key_is_refused(bad: str) -> None:
    with pytest.raises(IdError):
        EventKey.of_task("A", bad, "task.started", 1)


@given(run_ids, components)
def test_branches_round_trip(run: str, unit: str) -> None:
    branch = UnitBranch(run, unit)
    assert UnitBranch.parse(branch.format()) == branch
    assert wip_branch(branch.format()) == branch.progress()
    assert integration_branch(run).removeprefix("mergegate/") == run
    # a progress branch reads back as its unit, and `gc` lists a run's by its prefixes
    assert UnitBranch.parse_progress(branch.progress()) == branch
    unit_prefix, wip_prefix = UnitBranch.run_prefixes(run)
    assert branch.format().startswith(unit_prefix)
    assert branch.progress().startswith(wip_prefix)
    with pytest.raises(IdError):
        UnitBranch.parse_progress(branch.format())  # a unit branch is no progress branch
    with pytest.raises(IdError):
        UnitBranch.parse(branch.progress())


@given(st.sampled_from(list(Trailer)), components, components)
def test_trailers_round_trip(kind: Trailer, run: str, rest: str) -> None:
    line = TrailerLine(kind, f"{run}/{rest}")
    assert TrailerLine.parse(line.format()) == line


@pytest.mark.parametrize("bad", BAD_COMPONENTS)
def test_a_part_that_breaks_the_format_is_refused(bad: str) -> None:
    run = "20260101-120000-abcd"
    with pytest.raises(IdError):
        check_component(bad)
    with pytest.raises(IdError):
        UnitBranch(run, bad)
    with pytest.raises(IdError):
        WorkflowId.task(run, bad, "T1")
    with pytest.raises(IdError):
        WorkflowId.generation_child(run, 1, bad)
    with pytest.raises(IdError):
        carrier_branch(run, bad)
    # and the plan refuses it as an id, so none of these names is ever made from it
    assert id_problem(bad) is not None


@given(
    run_ids,
    components.filter(lambda u: re.fullmatch(r"g[0-9]{1,9}", u) is None),
    st.sampled_from(BAD_COMPONENTS),
)
def test_parse_rejects_an_injected_or_empty_part(run: str, unit: str, bad: str) -> None:
    """A part with a `/` injected makes a task's id one part too long (`<run>/<unit>/<task>/
    <again>` is the longest shape); the other bad parts fail as parts. (Where a `/` would only
    move the boundary between two parts, the constructors refuse it before anything is made.)"""
    for text in (
        f"{run}/{unit}/{unit}/{bad}",
        f"{run}/{bad}/{unit}/{unit}",
        f"{run}/g1/{bad}",
        f"{run}//{unit}",
        f"{run}/{unit}/",
        f"{run}/{unit}/{unit}/{unit}/{unit}",
        f"{run}/{unit}",
    ):
        if text == f"{run}/g1/{bad}" and "/" in bad:
            continue  # `<run>/g1/a/b`: the task `a` (again `b`) of a unit called `g1`
        with pytest.raises(IdError):
            WorkflowId.parse(text)
    if "/" not in bad:  # `a/b/g1` is the task `g1` of unit `b` of run `a`
        with pytest.raises(IdError):
            WorkflowId.parse(f"{bad}/g1")
    for text in (f"mergegate-unit/{run}/{bad}", f"mergegate-unit/{run}", f"mergegate/{run}/{unit}"):
        with pytest.raises(IdError):
            UnitBranch.parse(text)


def test_a_branch_mergegate_did_not_name_gets_a_wip_sibling() -> None:
    assert wip_branch("feature/x") == "feature/x.wip"
    assert wip_branch("mergegate-unit/r1/a/b") == "mergegate-unit/r1/a/b.wip"


def test_trailers_are_one_trimmed_line() -> None:
    for bad in ("", " x", "x ", "a\nMergegate-Unit: forged"):
        with pytest.raises(IdError):
            TrailerLine(Trailer.UNIT, bad)
    with pytest.raises(IdError):
        TrailerLine.parse("Signed-off-by: someone")


def test_id_error_is_a_value_error() -> None:
    assert issubclass(IdError, ValueError)
    assert not issubclass(IdError, UsageError)
    with pytest.raises(IdError, match="unit id 'a/b'"):
        UnitBranch("r1", "a/b")


def _plan_with_unit(unit_id: str) -> Plan:
    task = Task(id="1", name="t", done="d")
    unit = Unit(id=unit_id, tasks=(task,), must_haves=MustHaves(truths=("x",)))
    return Plan(format=PlanFormat.NATIVE, phases=(Phase(id="1", units=(unit,)),))


@pytest.mark.parametrize("bad", ["a/b", "..", "a/../b", "a b", "", "x.lock", "-x"])
def test_a_plan_whose_unit_id_would_break_a_name_is_refused_at_load(bad: str) -> None:
    """The unit id comes from the plan (untrusted): `run` refuses it (exit 2, naming the id)
    before a branch, folder or workflow id is made from it."""
    with pytest.raises(MergegateError) as refused:
        require_runnable(_plan_with_unit(bad))
    assert refused.value.exit_code == ExitCode.USAGE
    assert f"unit id {bad!r}" in str(refused.value)


@given(st.text(max_size=20))
def test_the_plan_and_the_names_accept_the_same_ids(value: str) -> None:
    """An id a plan may hold is exactly a part every composed name accepts."""
    try:
        check_component(value)
    except IdError:
        accepted = False
    else:
        accepted = True
    assert accepted == (id_problem(value) is None)
