"""GSD-family importer on hand-made trees: every variant FORMATS.md names, one at a time."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mergegate.plans import ImportResult, PlanError, Unit, load_plan

ROADMAP = """\
# Roadmap: Demo

## Phase Details

### Phase 1: Foundation
**Goal**: The core exists
**Depends on**: Nothing (first phase)
**Requirements**: CORE-01, CORE-02
**Success Criteria** (what must be TRUE):
  1. The core builds
  2. The core has tests
     that pass
**Plans:** 2 plans

Plans:
- [x] 01-01-PLAN.md — Scaffold the core
- [ ] 01-02: Core tests

#### Phase 14.1: Inserted Work (INSERTED)
**Goal:** Something urgent
**Success Criteria:**
- It is done

### Phase 999.1: Backlog item
**Goal:** Later

### Phase 3: Not Planned Yet
**Goal**: Exists only in the roadmap

```bash
# Phase 9: not a phase, a shell comment
```
"""


def plan_file(
    *,
    phase: str = "01-foundation",
    plan: str = "01",
    wave: str = "1",
    depends: str = "[]",
    extra: str = "",
    body: str | None = None,
) -> str:
    if body is None:
        body = """\
            <objective>
            Build the core.
            </objective>

            <tasks>

            <task type="auto">
              <name>Task 1: Write the core</name>
              <files>src/core.py, tests/test_core.py</files>
              <action>
            Write it. Example of a block the plan quotes:
            ```xml
            <task type="auto"><name>not a task</name></task>
            ```
              </action>
              <verify>
                <automated>pytest tests/test_core.py -q</automated>
              </verify>
              <done>The core works</done>
            </task>

            </tasks>

            <success_criteria>
            - core builds
            - tests pass
            </success_criteria>
            """
    head = f"""\
        ---
        phase: {phase}
        plan: {plan}
        type: execute
        wave: {wave}
        depends_on: {depends}
        files_modified: [src/core.py]
        autonomous: true
        {extra}
        must_haves:
          truths:
            - "The core builds"
          artifacts:
            - path: src/core.py
              provides: the core
              min_lines: 10
          key_links:
            - from: tests/test_core.py
              to: src/core.py
              via: import
        ---

        """
    return textwrap.dedent(head) + textwrap.dedent(body)


def tree(tmp_path: Path, files: dict[str, str], root: str = ".planning") -> Path:
    base = tmp_path / root
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


def unit(result: ImportResult, unit_id: str) -> Unit:
    found = [u for _, u in result.plan.units() if u.id == unit_id]
    assert len(found) == 1, [u.id for _, u in result.plan.units()]
    return found[0]


def codes(result: ImportResult) -> list[str]:
    return [w.code for w in result.warnings]


def test_a_standard_tree(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "ROADMAP.md": ROADMAP,
            "phases/01-foundation/01-01-PLAN.md": plan_file(),
            "phases/01-foundation/01-01-SUMMARY.md": "---\nphase: 01-foundation\n---\n",
            "phases/01-foundation/01-02-PLAN.md": plan_file(plan="02", wave="2", depends='["01"]'),
            "phases/01-foundation/01-CONTEXT.md": '# not a plan\n<task type="auto">\n',
            "phases/01-foundation/01-VERIFICATION.md": "---\nstatus: gaps_found\nscore: 1/2\n---\n",
            "phases/03-not-planned-yet/03-CONTEXT.md": "# Context only\n",
            "phases/14.1-inserted-work/14.1-01-PLAN.md": plan_file(
                phase="14.1-inserted-work", depends="\n          - 01-02"
            ),
        },
    )
    result = load_plan(root)
    plan = result.plan
    assert plan.title == "Demo"
    # The roadmap's own order (issue 27): `run` follows it, so numbers are never sorted first.
    assert [p.id for p in plan.phases] == ["01", "14.1", "999.1", "3"]
    first = plan.phases[0]
    assert (first.name, first.goal, first.directory) == (
        "Foundation",
        "The core exists",
        "phases/01-foundation",
    )
    assert [c.text for c in first.success_criteria] == [
        "The core builds",
        "The core has tests that pass",
    ]
    assert first.requirements == ("CORE-01", "CORE-02")
    assert first.verification_status == "gaps_found"
    assert first.extra["depends_on"] == "Nothing (first phase)"
    assert first.source is not None
    assert first.source.file == "ROADMAP.md"
    one = unit(result, "01-01")
    assert one.completed
    assert not unit(result, "01-02").completed
    assert one.name == "Scaffold the core"  # the roadmap's plan list names it
    assert unit(result, "01-02").depends_on == ("01-01",)  # short form: same phase
    assert unit(result, "14.1-01").depends_on == ("01-02",)  # block list, cross-phase
    task = one.tasks[0]
    assert (task.id, task.name, task.type) == ("1", "Task 1: Write the core", "auto")
    assert task.files == ("src/core.py", "tests/test_core.py")
    assert [c.run for c in task.verify.commands] == ["pytest tests/test_core.py -q"]
    assert task.verify.commands[0].source is not None
    assert task.done == "The core works"
    assert "not a task" in task.action  # the quoted block stays text
    assert len(one.tasks) == 1
    mh = one.must_haves
    assert (mh.truths, mh.artifacts[0].min_lines, mh.key_links[0].from_) == (
        ("The core builds",),
        10,
        "tests/test_core.py",
    )
    assert mh.artifacts[0].source is not None
    assert mh.artifacts[0].source.line == 14
    assert [c.text for c in one.success_criteria] == ["core builds", "tests pass"]
    assert one.extra["plan"] == "01"
    assert one.extra["type"] == "execute"
    inserted = plan.phases[1]
    assert (inserted.name, inserted.goal) == ("Inserted Work (INSERTED)", "Something urgent")
    assert plan.phases[3].units == ()
    assert plan.phases[3].directory == "phases/03-not-planned-yet"  # planned next, no plans yet
    assert result.warnings == ()


def test_plan_number_keeps_its_text(tmp_path: Path) -> None:
    root = tree(
        tmp_path, {"phases/04-x/04-00-PLAN.md": plan_file(phase="04-x", plan='"00"', wave="0")}
    )
    found = unit(load_plan(root), "04-00")
    assert found.extra["plan"] == "00"
    assert found.wave == 0


def test_file_name_variants(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "phases/05-a/05-01-first-thing-PLAN.md": plan_file(phase="05-a"),
            "phases/05-a/05-02-PLAN.md": plan_file(
                phase="05-a", plan="02", depends="[05-01-first-thing]"
            ),
            "phases/08-b/08-PLAN.md": plan_file(phase="08-b", plan="01"),
            "phases/09-c/09-PLAN.md": plan_file(phase="09-c", plan="null"),
        },
    )
    result = load_plan(root)
    assert [u.id for _, u in result.plan.units()] == ["05-01", "05-02", "08-01", "09"]
    assert unit(result, "05-02").depends_on == ("05-01",)  # slugged GSD id resolves


def test_completion_follows_gsd_summary_rule(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "phases/05-a/05-01-thing-PLAN.md": plan_file(phase="05-a"),
            "phases/05-a/05-01-thing-SUMMARY.md": "done\n",
            "phases/05-a/05-02-PLAN.md": plan_file(phase="05-a", plan="02"),
            "phases/05-a/05-02-other-SUMMARY.md": "a summary of something else\n",
        },
    )
    result = load_plan(root)
    assert [(u.id, u.completed) for _, u in result.plan.units()] == [
        ("05-01", True),
        ("05-02", False),
    ]


def test_milestone_archive_and_roadmap_lookup(tmp_path: Path) -> None:
    archived = (
        "# Roadmap\n\n### Phase 5: Review Work\n**Goal**: Reviews run\n**Success Criteria**:\n"
        "1. reviewed\n"
    )
    current = "# Roadmap: App\n\n### Phase 5: Something Else\n**Goal**: Other\n"
    root = tree(
        tmp_path,
        {
            "ROADMAP.md": current,
            "milestones/v1.0-ROADMAP.md": archived,
            "milestones/v1.0-phases/05-review-work/05-01-PLAN.md": plan_file(
                phase="05-review-work"
            ),
        },
    )
    phase = load_plan(root).plan.phases[0]
    assert (phase.name, phase.goal) == ("Review Work", "Reviews run")  # slug match wins
    assert phase.directory == "milestones/v1.0-phases/05-review-work"
    assert phase.units[0].source is not None
    assert phase.units[0].source.file == "milestones/v1.0-phases/05-review-work/05-01-PLAN.md"


def test_repeated_phase_numbers_stay_apart(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "phases/01-alpha/01-01-PLAN.md": plan_file(phase="01-alpha"),
            "phases/01-alpha/01-02-PLAN.md": plan_file(
                phase="01-alpha", plan="02", depends='["01-01"]'
            ),
            "phases/01-beta/01-01-PLAN.md": plan_file(phase="01-beta"),
            "phases/01-beta/01-02-PLAN.md": plan_file(
                phase="01-beta", plan="02", depends='["01-01"]'
            ),
        },
        root=".paul",
    )
    result = load_plan(root.parent)  # a directory holding .paul
    plan = result.plan
    assert [p.id for p in plan.phases] == ["01-alpha", "01-beta"]
    ids = [u.id for _, u in plan.units()]
    assert len(set(ids)) == 4
    for phase in plan.phases:  # each second plan depends on the first of *its* phase
        assert phase.units[1].depends_on == (phase.units[0].id,)
    assert plan.phases[0].units[0].source.file.startswith(".paul/phases/01-alpha/")  # type: ignore[union-attr]


def test_alphanumeric_ids_keep_roadmap_order(tmp_path: Path) -> None:
    roadmap = (
        "# Roadmap\n\n### Phase Q2: Second\n**Goal**: b\n\n### Phase AB1: First\n**Goal**: a\n"
    )
    root = tree(
        tmp_path,
        {
            "ROADMAP.md": roadmap,
            "phases/AB1-first/AB1-01-PLAN.md": plan_file(phase="AB1-first"),
            "phases/Q2-second/Q2-01-PLAN.md": plan_file(phase="Q2-second", depends="[AB1-01]"),
            "phases/2-number/2-01-PLAN.md": plan_file(phase="2-number"),
        },
    )
    plan = load_plan(root).plan
    # Roadmap sections in roadmap order; a phase no roadmap names comes after them (its
    # number is compared with numbered sections only, and these have none).
    assert [p.id for p in plan.phases] == ["Q2", "AB1", "2"]
    assert plan.phases[0].units[0].depends_on == ("AB1-01",)


def test_checkpoint_without_name_and_wave_conflict(tmp_path: Path) -> None:
    body = """\
        <tasks>
        <task type="auto">
          <name>Task 1: Build</name>
          <files>a.py</files>
          <action>Do</action>
          <verify>run it</verify>
          <done>built</done>
        </task>
        <task type="checkpoint:human-verify" gate="blocking">
          <what-built>The thing</what-built>
          <how-to-verify>Look at it</how-to-verify>
          <resume-signal>Type approved</resume-signal>
        </task>
        </tasks>
        """
    root = tree(
        tmp_path,
        {
            "phases/01-a/01-01-PLAN.md": plan_file(phase="01-a"),
            "phases/01-a/01-02-PLAN.md": plan_file(
                phase="01-a", plan="02", depends='["01-01"]', body=body
            ),
        },
    )
    result = load_plan(root)
    second = unit(result, "01-02")
    checkpoint = second.tasks[1]
    assert checkpoint.is_checkpoint
    assert checkpoint.name == "Task 2 (checkpoint:human-verify)"
    assert checkpoint.extra == {
        "gate": "blocking",
        "what-built": "The thing",
        "how-to-verify": "Look at it",
        "resume-signal": "Type approved",
    }
    assert not second.autonomous  # a checkpoint needs a person, whatever the frontmatter says
    warnings = {w.code: w for w in result.warnings}
    assert warnings["task-without-name"].source == checkpoint.source
    conflict = warnings["wave-conflict"]
    assert conflict.source == second.source
    assert "runs after 01-01" in conflict.message


def test_task_named_by_attribute(tmp_path: Path) -> None:
    body = (
        '<tasks>\n<task id="T1" title="Extract the module">\n  <done>x</done>\n</task>\n</tasks>\n'
    )
    result = load_plan(
        tree(tmp_path, {"phases/01-a/01-01-PLAN.md": plan_file(phase="01-a", body=body)})
    )
    task = unit(result, "01-01").tasks[0]
    assert (task.name, task.type, task.extra) == (
        "Extract the module",
        "auto",
        {"id": "T1", "title": "Extract the module"},
    )
    assert codes(result) == ["task-without-type"]


def test_unclosed_tags_end_at_the_next_sibling(tmp_path: Path) -> None:
    body = """\
        <tasks>
        <task type="auto">
          <name>Task 1: First</name>
          <action>
        never closed
          <verify>check one</verify>
          <done>one</done>
        <task type="auto">
          <name>Task 2: Second</name>
          <done>two</done>
        </task>
        </tasks>
        """
    result = load_plan(
        tree(tmp_path, {"phases/01-a/01-01-PLAN.md": plan_file(phase="01-a", body=body)})
    )
    tasks = unit(result, "01-01").tasks
    assert [t.name for t in tasks] == ["Task 1: First", "Task 2: Second"]
    assert tasks[0].action == "never closed"
    assert (tasks[0].verify.text, tasks[0].done) == ("check one", "one")
    unclosed = [w for w in result.warnings if w.code == "unclosed-tag"]
    assert unclosed
    assert unclosed[0].source is not None
    assert unclosed[0].source.line == tasks[0].source.line


def test_2026_task_parts(tmp_path: Path) -> None:
    body = """\
        <tasks>
        <task type="auto" tdd="true">
          <name>Task 1: Store</name>
          <files>
            - src/store.ts
            - tests/store.test.ts
          </files>
          <read_first>
            - src/store.ts (full file — existing pattern, see notes)
            - docs/a.md — why
          </read_first>
          <behavior>
            - Test: default is orbit
          </behavior>
          <action>Edit</action>
          <verify>
            <automated>npm test -- --run tests/store.test.ts</automated>
            <automated>
            grep -c cameraMode src/store.ts
            </automated>
          </verify>
          <acceptance_criteria>
            - `grep -c "x" a.ts` returns >= 5
            - tests pass
              with no skips
          </acceptance_criteria>
          <done>done</done>
        </task>
        </tasks>
        """
    task = unit(
        load_plan(
            tree(tmp_path, {"phases/04-a/04-01-PLAN.md": plan_file(phase="04-a", body=body)})
        ),
        "04-01",
    ).tasks[0]
    assert task.files == ("src/store.ts", "tests/store.test.ts")
    assert task.read_first == ("src/store.ts", "docs/a.md")
    assert task.behavior == "- Test: default is orbit"
    assert [c.run for c in task.verify.commands] == [
        "npm test -- --run tests/store.test.ts",
        "grep -c cameraMode src/store.ts",
    ]
    assert [c.text for c in task.acceptance_criteria] == [
        '`grep -c "x" a.ts` returns >= 5',
        "tests pass with no skips",
    ]
    assert task.extra == {"tdd": "true"}


def test_paul_plan_with_gherkin_and_boundaries(tmp_path: Path) -> None:
    body = """\
        <objective>
        ## Goal
        Migrate the planner.

        ## Purpose
        Cheaper.
        </objective>

        <acceptance_criteria>

        ## AC-1: Planner uses the new SDK
        ```gherkin
        Given the planner
        When inspecting imports
        Then it uses the new SDK
        ```

        ## AC-2: Output unchanged
        ```gherkin
        Given a call
        Then the output validates
        ```

        </acceptance_criteria>

        <tasks>
        <task type="auto">
          <name>Task 1: Migrate</name>
          <files>src/planner.ts</files>
          <action>Do it</action>
          <verify>npx tsc --noEmit passes</verify>
          <done>AC-1 satisfied</done>
        </task>
        </tasks>

        <boundaries>
        ## DO NOT CHANGE
        - src/vision.ts (stays)
        - package.json
        </boundaries>
        """
    found = unit(
        load_plan(
            tree(
                tmp_path,
                {"phases/01-a/01-01-PLAN.md": plan_file(phase="01-a", body=body)},
                root=".paul",
            )
        ),
        "01-01",
    )
    assert [c.id for c in found.acceptance_criteria] == ["AC-1", "AC-2"]
    assert found.acceptance_criteria[0].text.splitlines()[0] == "Planner uses the new SDK"
    assert "Then it uses the new SDK" in found.acceptance_criteria[0].text
    assert found.boundaries == ("src/vision.ts (stays)", "package.json")
    assert found.name == "Migrate the planner."
    assert found.tasks[0].verify.commands == ()  # prose is not a runnable command


def test_markdown_task_plan_without_frontmatter(tmp_path: Path) -> None:
    text = """\
        # Phase 20 Plan 01: Budget Enforcement

        ## Tasks

        ### Task 1: Replace the validation

        **File:** `src/rules.ts`

        **Boundaries:**
        - keep the rest

        ### Task 2: Add tests

        **Files:**
        - `src/rules.test.ts`

        ## Acceptance Criteria

        | AC | Description |
        |----|-------------|
        | AC-1 | Builds without throwing |
        | AC-2 | Warns for each drop |

        ## Boundaries

        - **Protected:** getDspForSlot
        """
    result = load_plan(
        tree(tmp_path, {"phases/20-budget/20-01-PLAN.md": textwrap.dedent(text)}, root=".paul")
    )
    found = unit(result, "20-01")
    assert [t.name for t in found.tasks] == ["Task 1: Replace the validation", "Task 2: Add tests"]
    assert [t.files for t in found.tasks] == [("src/rules.ts",), ("src/rules.test.ts",)]
    assert [(c.id, c.text) for c in found.acceptance_criteria] == [
        ("AC-1", "Builds without throwing"),
        ("AC-2", "Warns for each drop"),
    ]
    assert found.boundaries == ("**Protected:** getDspForSlot",)
    assert found.wave is None
    assert found.depends_on == ()
    assert found.name == "Phase 20 Plan 01: Budget Enforcement"
    assert "no-frontmatter" in codes(result)


def test_ticked_checklist_plan(tmp_path: Path) -> None:
    text = (
        "---\nphase: 08-x\nplan: 01\nsubsystem: ui\n---\n\n# Plan\n\n## Tasks\n\n"
        "- [x] First thing\n- [x] Second thing\n  continued\n\n## Verification\n\n"
        "- [x] It shows\n"
    )
    result = load_plan(tree(tmp_path, {"phases/08-x/08-PLAN.md": text}))
    found = unit(result, "08-01")
    assert [t.name for t in found.tasks] == ["First thing", "Second thing continued"]
    assert not found.completed  # ticks are no evidence
    assert [c.text for c in found.success_criteria] == ["It shows"]
    assert found.extra["subsystem"] == "ui"
    assert {"ticked-checklist", "no-wave", "no-depends-on"} <= set(codes(result))


def test_frontmatter_that_is_not_yaml_is_read_leniently(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        ---
        phase: 01-a
        plan: 01
        wave: 1
        depends_on: []
        files_modified:
          - src/a.py
        must_haves:
          truths:
            - Windowing works (planner: 10 msgs, chat: 20 msgs)
            - "quoted: fine"
          artifacts:
            - path: src/a.py
              provides: windowing
              min_lines: 5
        ---

        <tasks>
        <task type="auto"><name>Task 1: A</name></task>
        </tasks>
        """
    )
    result = load_plan(tree(tmp_path, {"phases/01-a/01-01-PLAN.md": text}))
    found = unit(result, "01-01")
    assert found.must_haves.truths == (
        "Windowing works (planner: 10 msgs, chat: 20 msgs)",
        "quoted: fine",
    )
    artifact = found.must_haves.artifacts[0]
    assert (artifact.path, artifact.provides, artifact.min_lines) == ("src/a.py", "windowing", 5)
    assert artifact.source is not None
    assert artifact.source.line == 13
    assert (found.files, found.wave, found.extra["plan"]) == (("src/a.py",), 1, "01")
    assert "frontmatter-not-yaml" in codes(result)


def test_broken_yaml_falls_back_with_a_warning_or_fails_with_the_line(tmp_path: Path) -> None:
    lenient = (
        "---\nphase: 01-a\nplan: 01\nwave: 1\ndepends_on: []\nprovides:\n"
        "  - Windowing (planner: 10 msgs, chat: 20 msgs)\n---\n"
        '<task type="auto"><name>Task 1: A</name></task>\n'
    )
    result = load_plan(tree(tmp_path, {"phases/01-a/01-01-PLAN.md": lenient}))
    found = unit(result, "01-01")
    assert found.extra["provides"] == ["Windowing (planner: 10 msgs, chat: 20 msgs)"]
    assert found.extra["plan"] == "01"
    assert found.wave == 1
    warning = next(w for w in result.warnings if w.code == "frontmatter-not-yaml")
    assert warning.source is not None
    assert warning.source.line == 7

    # Frontmatter nothing can read: the unit keeps its tasks, the import records an *error*.
    hopeless = (
        '---\nphase: 01-a\nplan: [01\nwave: 1\n---\n<task type="auto"><name>A</name></task>\n'
    )
    other = tree(
        tmp_path / "other",
        {
            "phases/01-a/01-01-PLAN.md": hopeless,
            "phases/01-a/01-02-PLAN.md": plan_file(phase="01-a", plan="02"),
        },
    )
    result = load_plan(other)
    (error,) = result.errors
    assert error.code == "unreadable-frontmatter"
    assert str(error).startswith("phases/01-a/01-01-PLAN.md:3: error: frontmatter is not YAML")
    broken = unit(result, "01-01")
    assert ([t.name for t in broken.tasks], broken.wave, broken.extra) == (
        ["A"],
        None,
        {"frontmatter": "unreadable"},
    )
    assert unit(result, "01-02").wave == 1  # the rest of the tree is read as usual


def test_unclosed_frontmatter_is_an_error(tmp_path: Path) -> None:
    result = load_plan(
        tree(tmp_path, {"phases/01-a/01-01-PLAN.md": "---\nphase: 01\n\n# no end\n"})
    )
    assert [str(e) for e in result.errors] == [
        "phases/01-a/01-01-PLAN.md:1: error: frontmatter opened here is never closed with '---'; "
        "this plan's wave, depends_on and must_haves are unknown"
    ]


def test_no_tasks_is_a_warning_on_import(tmp_path: Path) -> None:
    result = load_plan(
        tree(
            tmp_path,
            {"phases/01-a/01-01-PLAN.md": plan_file(phase="01-a", body="<tasks>\n</tasks>\n")},
        )
    )
    assert unit(result, "01-01").tasks == ()
    assert "no-tasks" in codes(result)


def test_single_plan_file_and_phase_directory(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "phases/04-a/04-01-PLAN.md": plan_file(phase="04-a"),
            "phases/04-a/04-01-SUMMARY.md": "x\n",
            "phases/04-a/04-02-PLAN.md": plan_file(phase="04-a", plan="02", depends='["04-01"]'),
        },
    )
    single = load_plan(root / "phases/04-a/04-02-PLAN.md").plan
    assert [(p.id, [u.id for u in p.units]) for p in single.phases] == [("04", ["04-02"])]
    assert single.phases[0].units[0].source.file == "04-02-PLAN.md"  # type: ignore[union-attr]
    directory = load_plan(root / "phases/04-a").plan
    assert [(u.id, u.completed) for _, u in directory.units()] == [
        ("04-01", True),
        ("04-02", False),
    ]


def test_empty_planning_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".planning").mkdir()
    with pytest.raises(PlanError, match=r"no \*-PLAN\.md files"):
        load_plan(tmp_path)


def test_quick_and_research_directories(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "quick/001-fix-typo/001-PLAN.md": plan_file(phase="001-fix-typo", plan="01"),
            "research/notes-PLAN.md": "not a plan at all\n",
        },
    )
    plan = load_plan(root).plan
    # Quick task 001 is no phase 001: its ids say so (`depends_on: [001-01]` means a phase).
    assert [(p.id, p.directory) for p in plan.phases] == [("quick-001", "quick/001-fix-typo")]
    assert [u.id for _, u in plan.units()] == ["quick-001-01"]


def test_frontmatter_value_shapes(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        ---
        phase: 03-c
        plan: 02
        wave: 2
        depends_on: "03-01, 01-01"
        requirements: A-1, A-2
        must_haves:
          artifacts:
            - path: src/c.py
              contains: ["def c", "class C"]
              exports: "c, C"
            - src/d.py
        ---

        <tasks>
        <task type="auto"><name>Task 1: C</name><done>c</done></task>
        </tasks>
        """
    )
    root = tree(
        tmp_path,
        {
            "phases/03-c/03-02-PLAN.md": text,
            "phases/03-c/03-01-PLAN.md": plan_file(phase="03-c"),
            "phases/01-a/01-01-PLAN.md": plan_file(phase="01-a"),
        },
    )
    found = unit(load_plan(root), "03-02")
    assert found.depends_on == ("03-01", "01-01")
    assert found.requirements == ("A-1", "A-2")
    first, second = found.must_haves.artifacts
    assert (first.contains, first.exports) == ("def c\nclass C", ("c", "C"))
    assert second.path == "src/d.py"
