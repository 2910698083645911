"""`check_plan` and `unit_waves` on hand-made plans: every finding names its file:line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mergegate.plans import (
    CycleError,
    PlanIssue,
    Severity,
    check_plan,
    load_plan,
    unit_waves,
)


def native(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text("mergegate_plan: 1\n" + textwrap.dedent(body), encoding="utf-8")
    return path


def issues(path: Path) -> list[PlanIssue]:
    return list(check_plan(load_plan(path).plan))


def only(found: list[PlanIssue], code: str) -> PlanIssue:
    matching = [issue for issue in found if issue.code == code]
    assert len(matching) == 1, [str(issue) for issue in found]
    return matching[0]


def line_of(path: Path, needle: str) -> int:
    """The 1-based line of the first line containing `needle`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if needle in line)


def units_yaml(*units: str) -> str:
    """A one-phase plan whose units are given as `id|key: value|key: value` strings."""
    out = ["phases:", '  - id: "1"', "    success_criteria: [works]", "    units:"]
    for spec in units:
        unit_id, *fields = spec.split("|")
        out.append(f"      - id: {unit_id}")
        out.extend(f"        {field}" for field in fields)
        out += ["        tasks:", f'          - {{id: "1", name: Do {unit_id}, done: done}}']
    return "\n".join(out) + "\n"


def test_a_dependency_cycle_is_an_error_with_file_and_line(tmp_path: Path) -> None:
    path = native(
        tmp_path, units_yaml("a|depends_on: [c]", "b|depends_on: [a]", "c|depends_on: [b]")
    )
    cycle = only(issues(path), "dependency-cycle")
    assert cycle.severity == Severity.ERROR
    assert "a → c → b → a" in cycle.message
    where = line_of(path, "- id: a")
    assert str(cycle).startswith(f"plan.yaml:{where}: error: dependency cycle")
    with pytest.raises(CycleError):
        unit_waves(load_plan(path).plan.phases[0])


def test_an_unknown_dependency_is_an_error_with_file_and_line(tmp_path: Path) -> None:
    path = native(tmp_path, units_yaml("a|depends_on: [nope]"))
    unknown = only(issues(path), "unknown-dependency")
    assert unknown.severity == Severity.ERROR
    where = line_of(path, "- id: a")
    assert str(unknown) == (
        f"plan.yaml:{where}: error: unit a depends on 'nope', which is no unit of this plan"
    )


def test_same_wave_file_overlap_is_a_warning_with_file_and_line(tmp_path: Path) -> None:
    path = native(
        tmp_path,
        units_yaml(
            "a|wave: 1|files: [src/x.py, ./src/shared.py]",
            "b|wave: 1|files: [src/shared.py]",
            "c|wave: 2|files: [src/shared.py]",
        ),
    )
    found = issues(path)
    overlap = only(found, "same-wave-file")
    assert overlap.severity == Severity.WARNING
    a, b = line_of(path, "- id: a"), line_of(path, "- id: b")
    assert str(overlap) == (
        f"plan.yaml:{b}: warning: units a (plan.yaml:{a}) and b run together (phase 1, wave 1) "
        "and both list src/shared.py"
    )
    assert not [i for i in found if i.severity == Severity.ERROR]


def test_dependencies_separate_declared_waves(tmp_path: Path) -> None:
    path = native(
        tmp_path,
        units_yaml("a|files: [same.py]", "b|depends_on: [a]|files: [same.py]", "c|wave: 3"),
    )
    result = load_plan(path)
    phase = result.plan.phases[0]
    assert [[u.id for u in wave] for wave in unit_waves(phase)] == [["a"], ["b"], ["c"]]
    assert not [i for i in issues(path) if i.code == "same-wave-file"]  # b runs after a
    assert result.warnings == ()  # no declared wave contradicts a dependency


def test_a_declared_wave_that_contradicts_depends_on_is_reported(tmp_path: Path) -> None:
    path = native(tmp_path, units_yaml("a|wave: 1", "b|wave: 1|depends_on: [a]"))
    result = load_plan(path)
    assert [[u.id for u in w] for w in unit_waves(result.plan.phases[0])] == [["a"], ["b"]]
    (warning,) = result.warnings
    assert warning.code == "wave-conflict"
    assert str(warning) == (
        f"plan.yaml:{line_of(path, '- id: b')}: warning: unit b declares wave 1 but depends "
        "on a (wave 1); it runs after a"
    )


def test_other_findings(tmp_path: Path) -> None:
    path = native(
        tmp_path,
        """\
        phases:
          - id: "2"
            units:
              - id: early
                depends_on: [late]
                tasks:
                  - id: "1"
                    name: No criteria
                  - id: "2"
                    name: Ask a person
                    type: checkpoint:human-action
          - id: "3"
            units:
              - id: late
                tasks: []
              - id: late
                acceptance_criteria: [x]
                tasks:
                  - id: "1"
                    name: Checked
                    checks: [make test]
        """,
    )
    found = issues(path)
    assert [i.severity for i in found] == sorted(
        (i.severity for i in found), key=[Severity.ERROR, Severity.WARNING, Severity.INFO].index
    )
    by_code: dict[str, PlanIssue] = {}
    for issue in found:
        by_code.setdefault(issue.code, issue)  # the first of each kind, in plan order
    early, late = line_of(path, "- id: early"), line_of(path, "- id: late")
    duplicate = path.read_text().splitlines().index("      - id: late", late) + 1
    assert str(by_code["later-phase-dependency"]).startswith(
        f"plan.yaml:{early}: error: unit early"
    )
    assert str(by_code["duplicate-id"]).startswith(f"plan.yaml:{duplicate}: error: unit id 'late'")
    assert str(by_code["no-tasks"]).startswith(f"plan.yaml:{late}: error: unit late has no tasks")
    no_criteria = line_of(path, "name: No criteria") - 1
    assert str(by_code["task-without-criteria"]).startswith(
        f"plan.yaml:{no_criteria}: warning: task 'No criteria'"
    )
    assert str(by_code["no-must-haves"]).startswith(f"plan.yaml:{early}: warning: unit early")
    person = line_of(path, "name: Ask a person") - 1
    assert str(by_code["checkpoint"]).startswith(
        f"plan.yaml:{person}: info: checkpoint:human-action in unit early"
    )
    assert "no-acceptance" not in by_code


def test_a_plan_with_nothing_to_verify_is_an_error(tmp_path: Path) -> None:
    path = native(
        tmp_path,
        """\
        phases:
          - id: "1"
            units:
              - id: a
                tasks:
                  - {id: "1", name: Just do it}
        """,
    )
    assert str(only(issues(path), "no-acceptance")).startswith(
        "plan.yaml:1: error: the plan has no"
    )


def test_corpus_plans_have_no_errors(shared_dir: Path) -> None:
    corpus = shared_dir / "corpus" / "plans"
    roots = [
        *corpus.glob("gsd/*/.planning"),
        *corpus.glob("gsd/*/.paul"),
        *corpus.glob("spectacular/*/specs/*"),
        *corpus.glob("superpowers/**/*.md"),
    ]
    assert len(roots) >= 16
    for root in roots:
        plan = load_plan(root).plan
        errors = [i.code for i in check_plan(plan) if i.severity == Severity.ERROR]
        # A plan with nothing at all to verify against (one superpowers plan in the corpus has
        # no Run/Expected pair and no criteria) is refused; nothing else is wrong with any.
        checkable = any(
            t.verify.commands or t.done or t.acceptance_criteria for _, t in plan.tasks()
        )
        checkable = checkable or any(
            not u.must_haves.empty or u.acceptance_criteria for _, u in plan.units()
        )
        assert errors == ([] if checkable else ["no-acceptance"]), root
