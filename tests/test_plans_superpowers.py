"""superpowers importer on hand-made plans: tasks, file lists, steps, Run/Expected checks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mergegate.plans import FileChange, PlanError, PlanFormat, load_plan

PLAN = """\
# Widget Implementation Plan

> **For agentic workers:** REQUIRED: Use superpowers:executing-plans. Steps use `- [ ]`.

**Goal:** Widgets render fast

**Architecture:** One module

**Tech Stack:** Python

---

## Chunk 1: Core

### Task 1: Widget model

**Files:**
- Create: `src/widget.py`
- Modify: `src/app.py:12-40`
- Test: `tests/test_widget.py`
- Reference: `src/old.py` (lines 1-20)
- Move: `src/a.py` → `src/b.py`

- [ ] **Step 1: Write the failing test**

```python
# Task 9: not a task, a comment in code
def test_widget(): ...
```

- [ ] **Step 2: Run it to see it fail**

Run: `pytest tests/test_widget.py -q`
Expected: FAIL — no module named widget

- [x] **Step 3: Implement**

- [ ] **Step 4: Run it again**

Run:
```bash
pytest tests/test_widget.py -q
ruff check src
```
Expected: PASS

### Task 2: Docs

**Step 1: Write docs**

Run: `mkdir -p docs`

**Step 2: Check**

Run: `test -f docs/widget.md`
Expected:
```
no output
```

#### Step 3: Commit

## Task 3 — Wrap up

Nothing here.
"""


def write(tmp_path: Path, text: str, name: str = "2026-03-14-widget.md") -> Path:
    path = tmp_path / "docs" / "superpowers" / "plans" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_plan_is_one_sequential_unit(tmp_path: Path) -> None:
    result = load_plan(write(tmp_path, PLAN))
    plan = result.plan
    assert plan.format == PlanFormat.SUPERPOWERS
    assert plan.title == "Widget Implementation Plan"
    assert plan.extra["banner"].startswith("**For agentic workers:**")  # type: ignore[union-attr]
    (phase,) = plan.phases
    (unit,) = phase.units
    assert phase.goal == unit.objective == "Widgets render fast"
    assert unit.id == "2026-03-14-widget"
    assert unit.wave == 1
    assert unit.depends_on == ()
    assert unit.extra == {"architecture": "One module", "tech_stack": "Python"}
    assert [t.name for t in unit.tasks] == [
        "Task 1: Widget model",
        "Task 2: Docs",
        "Task 3 — Wrap up",
    ]
    assert [t.id for t in unit.tasks] == ["1", "2", "3"]
    assert unit.tasks[0].extra == {"group": "Chunk 1: Core"}
    assert [w.code for w in result.warnings] == ["task-without-files", "task-without-files"]


def test_files_keep_verbs_and_lose_locators(tmp_path: Path) -> None:
    task = load_plan(write(tmp_path, PLAN)).plan.phases[0].units[0].tasks[0]
    assert task.file_changes == (
        FileChange(path="src/widget.py", action="create"),
        FileChange(path="src/app.py", action="modify", lines="12-40"),
        FileChange(path="tests/test_widget.py", action="test"),
        FileChange(path="src/old.py", action="reference"),
        FileChange(path="src/a.py", action="move", to="src/b.py"),
    )
    assert task.files == (
        "src/widget.py",
        "src/app.py",
        "tests/test_widget.py",
        "src/a.py",
        "src/b.py",
    )
    assert task.read_first == ("src/old.py",)


def test_steps_and_checks(tmp_path: Path) -> None:
    tasks = load_plan(write(tmp_path, PLAN)).plan.phases[0].units[0].tasks
    first, second, third = tasks
    assert [s.title for s in first.steps] == [
        "Step 1: Write the failing test",
        "Step 2: Run it to see it fail",
        "Step 3: Implement",
        "Step 4: Run it again",
    ]
    red = first.steps[1].checks[0]
    assert (red.run, red.expect, red.expect_failure) == (
        "pytest tests/test_widget.py -q",
        "FAIL — no module named widget",
        True,
    )
    green = first.steps[3].checks[0]
    assert (green.run, green.expect, green.expect_failure) == (
        "pytest tests/test_widget.py -q\nruff check src",
        "PASS",
        False,
    )
    assert first.verify.commands == (green,)  # red steps are never acceptance checks
    assert green.source is not None
    assert green.source.line == PLAN.splitlines().index("Run:") + 1
    assert [s.title for s in second.steps] == [
        "Step 1: Write docs",
        "Step 2: Check",
        "Step 3: Commit",
    ]
    assert second.steps[0].checks == ()  # `Run:` without `Expected:` is an action, not a check
    assert [(c.run, c.expect) for c in second.verify.commands] == [
        ("test -f docs/widget.md", "no output")
    ]
    assert third.steps == ()
    assert third.verify.commands == ()


def test_old_style_plan_with_h2_tasks_and_no_banner(tmp_path: Path) -> None:
    text = """\
        # Loki Export - Implementation Plan

        **Author:** Someone

        ## Task 1: Config

        **File:** `config.go`

        ## Task 2: Exporter

        **File:** `exporter.go`

        ## Checklist

        - [ ] done
        """
    plan = load_plan(write(tmp_path, text, "2026-01-23-loki.md")).plan
    unit = plan.phases[0].units[0]
    assert [(t.name, t.files) for t in unit.tasks] == [
        ("Task 1: Config", ("config.go",)),
        ("Task 2: Exporter", ("exporter.go",)),
    ]
    assert "banner" not in plan.extra
    assert unit.extra == {"author": "Someone"}


def test_a_markdown_file_without_tasks_is_not_a_plan(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match=r"^design\.md:1: not a recognised plan"):
        load_plan(
            write(
                tmp_path, "# Design\n\nSome prose.\n\n```\n### Task 1: in code\n```\n", "design.md"
            )
        )


def test_task_headings_need_a_number(tmp_path: Path) -> None:
    text = """\
        # Plan

        ## Task list

        ## Task 1 Set up

        **Files:**
        - Create: `a.py`

        ## Task overview
        """
    tasks = load_plan(write(tmp_path, text)).plan.phases[0].units[0].tasks
    assert [t.name for t in tasks] == ["Task 1 Set up"]


def test_one_bullet_may_list_several_files(tmp_path: Path) -> None:
    text = """\
        # Plan

        ### Task 1: Check

        **Files:**

        - Modify: `server.py:21-40, 120-142, 1140-1165`
        - Verify: `server.py`, `static/app.js`
        - Create: `prototype\\fixtures\\outline.txt`
        """
    task = load_plan(write(tmp_path, text)).plan.phases[0].units[0].tasks[0]
    assert task.file_changes == (
        FileChange(path="server.py", action="modify", lines="21-40, 120-142, 1140-1165"),
        FileChange(path="server.py", action="verify"),
        FileChange(path="static/app.js", action="verify"),
        FileChange(path="prototype\\fixtures\\outline.txt", action="create"),
    )
    assert task.files == ("server.py", "prototype\\fixtures\\outline.txt")
