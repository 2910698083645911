"""Plans read exactly as written (issue 27, deliverable 6), each class from a small plan.

* every ROADMAP phase heading form is kept — custom ids (`CV-RENDER`, `AE1`), deep numbers
  (`12.3.1`), em dashes, decoration — and one that is skipped says so at its file:line;
* phases keep the roadmap's order (numbers are never sorted before other ids);
* superpowers steps written as a fenced shell block followed by `Expected:` are checks;
* steps under mis-nested fences (an example block holding blocks of its own) are kept.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.cli import cli
from mergegate.plans import ImportResult, check_plan, load_plan
from mergegate.plans._document import Document
from mergegate.plans._gsd_roadmap import read_roadmap


def gsd_plan(phase: str, plan: str = "01") -> str:
    return textwrap.dedent(
        f"""\
        ---
        phase: {phase}
        plan: {plan}
        wave: 1
        depends_on: []
        must_haves:
          truths: ["it works"]
        ---
        <tasks>
        <task type="auto">
          <name>Task 1: Build</name>
          <done>built</done>
        </task>
        </tasks>
        """
    )


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / ".planning" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / ".planning"


def codes(result: ImportResult) -> list[tuple[str, str]]:
    return [(w.code, str(w.source)) for w in result.warnings]


# ---------------------------------------------------------------- ROADMAP headings and order

ROADMAP = """\
# Roadmap: Render

## Phase Details

### Phase 1: Foundation
**Goal**: the base
**Success Criteria**:
1. It builds

### Phase CV-RENDER: Render pipeline
**Goal**: frames on screen
**Success Criteria** (what must be TRUE):
1. A frame renders
2. Frames render at 60 fps

### Phase 12.3.1 — Deep fix ✅
**Goal**: deeper

#### Phase AE1: Audio engine
**Goal**: sound

<details>
<summary>Shipped</summary>
### Phase 1-9: Everything before
**Delivered:** lots
</details>

## ~~Phase 4: Dropped idea~~ — CANCELLED

### Phase 2.1: Inserted late
**Goal**: urgent
"""


def test_every_heading_form_is_kept_and_skips_are_warned(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "ROADMAP.md": ROADMAP,
            "phases/01-foundation/01-01-PLAN.md": gsd_plan("01-foundation"),
            "phases/CV-RENDER-render-pipeline/CV-RENDER-01-PLAN.md": gsd_plan("CV-RENDER"),
            "phases/2.1-inserted-late/2.1-01-PLAN.md": gsd_plan("2.1-inserted-late"),
        },
    )
    result = load_plan(root)
    phases = result.plan.phases
    # Roadmap order, not numbers first: 1, CV-RENDER, 12.3.1, AE1, 2.1.
    assert [p.id for p in phases] == ["01", "CV-RENDER", "12.3.1", "AE1", "2.1"]
    render = phases[1]
    assert (render.name, render.goal) == ("Render pipeline", "frames on screen")
    assert [c.text for c in render.success_criteria] == [
        "A frame renders",
        "Frames render at 60 fps",
    ]
    assert [u.id for u in render.units] == ["CV-RENDER-01"]
    assert render.directory == "phases/CV-RENDER-render-pipeline"
    assert phases[2].name == "Deep fix"  # decoration after the name dropped
    skipped = [(c, where) for c, where in codes(result) if c == "roadmap-phase-skipped"]
    assert skipped == [
        ("roadmap-phase-skipped", "ROADMAP.md:24"),  # Phase 1-9: a range
        ("roadmap-phase-skipped", "ROADMAP.md:28"),  # ~~Phase 4~~: cancelled
    ]
    messages = " ".join(w.message for w in result.warnings)
    assert "range of phases" in messages
    assert "struck through" in messages


def test_run_follows_the_order_plan_show_prints(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "ROADMAP.md": "# R\n\n### Phase 2: Second\n**Goal**: b\n\n### Phase 1: First\n"
            "**Goal**: a\n\n### Phase 10: Tenth\n**Goal**: c\n",
            "phases/01-first/01-01-PLAN.md": gsd_plan("01-first"),
            "phases/02-second/02-01-PLAN.md": gsd_plan("02-second"),
            "phases/10-tenth/10-01-PLAN.md": gsd_plan("10-tenth"),
            "phases/05-unlisted/05-01-PLAN.md": gsd_plan("05-unlisted"),
        },
    )
    plan = load_plan(root).plan
    # As written; a phase the roadmap does not name goes before the first larger number.
    assert [p.id for p in plan.phases] == ["02", "01", "05", "10"]
    result = CliRunner().invoke(cli, ["plan", "show", str(root)])
    shown = [line.split(":")[0] for line in result.stdout.splitlines() if line.startswith("phase")]
    assert shown == ["phase 02", "phase 01", "phase 05", "phase 10"]


def test_archived_milestones_run_before_the_current_roadmap(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "ROADMAP.md": "# R\n\n### Phase 1: Again\n**Goal**: v2 restarts numbering\n",
            "milestones/v1.10-ROADMAP.md": "# v1.10\n\n### Phase 1: Late\n**Goal**: x\n",
            "milestones/v1.2-ROADMAP.md": "# v1.2\n\n### Phase 1: Early\n**Goal**: y\n",
            "milestones/v1.2-phases/01-early/01-01-PLAN.md": gsd_plan("01-early"),
            "milestones/v1.10-phases/01-late/01-01-PLAN.md": gsd_plan("01-late"),
            "phases/01-again/01-01-PLAN.md": gsd_plan("01-again"),
            "quick/1-fix-typo/1-PLAN.md": gsd_plan("quick"),
        },
    )
    plan = load_plan(root).plan
    # v1.2 before v1.10 (versions, not text), the current roadmap after both, quick tasks
    # last and never given roadmap phase 1's name.
    assert [p.name for p in plan.phases] == ["Early", "Late", "Again", "fix typo"]


_ID = st.one_of(
    st.from_regex(r"\A[0-9]{1,3}(\.[0-9]{1,2}){0,3}\Z"),
    st.from_regex(r"\A[A-Z]{1,4}[0-9]{0,2}(-[A-Z0-9]{1,6}){0,2}\Z"),
    st.from_regex(r"\A[0-9]{1,3}[A-Z]\Z"),
)
_SEPARATOR = st.sampled_from([": ", " — ", " – ", " - ", ":\t", ". "])
_DECORATION = st.sampled_from([("", ""), ("✅ ", ""), ("**", "**"), ("🚧 ", " ✓")])


@settings(max_examples=150, deadline=None)
@given(st.lists(_ID, min_size=1, max_size=6, unique_by=str.lower), _SEPARATOR, _DECORATION)
def test_any_phase_heading_form_is_read_in_order(
    ids: list[str], separator: str, decoration: tuple[str, str]
) -> None:
    lead, tail = decoration
    sections = [
        f"{'#' * (2 + k % 3)} {lead}Phase {pid}{separator}Name {k}{tail}\n**Goal**: g{k}\n"
        for k, pid in enumerate(ids)
    ]
    doc = Document.from_text("ROADMAP.md", "# Roadmap: x\n\n" + "\n".join(sections))
    roadmap = read_roadmap(doc)
    assert [p.id for p in roadmap.phases] == ids
    assert [p.name for p in roadmap.phases] == [f"Name {k}" for k in range(len(ids))]
    assert [p.goal for p in roadmap.phases] == [f"g{k}" for k in range(len(ids))]


# ---------------------------------------------------------------- superpowers checks

SUPERPOWERS = """\
# Loader Plan

**Goal:** load things

### Task 1: Loader

**Files:**
- Create: `src/loader.py`
- Test: `tests/test_loader.py`

- [ ] **Step 1: Run the new test**

```bash
pytest tests/test_loader.py -q
```
Expected: New test FAILS — `loader` does not exist yet

- [ ] **Step 2: Write it**

```python
def load(): ...
```
Expected: (the code above is no command)

- [ ] **Step 3: Run all tests**

Run all of them, from the root:

```bash
cd packages/core
pytest -q
```

Expected: All tests PASS

- [ ] **Step 4: Check the CLI**

```console
$ loader --version
loader 1.0
```
Expected: the version is printed
"""


def test_a_shell_fence_followed_by_expected_is_a_check(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(SUPERPOWERS, encoding="utf-8")
    (task,) = [t for _, t in load_plan(path).plan.tasks()]
    checks = [
        (c.run, c.expect_failure, c.source.line if c.source else 0)
        for s in task.steps
        for c in s.checks
    ]
    assert checks == [
        ("pytest tests/test_loader.py -q", True, 13),  # a red step: stays with its step
        ("cd packages/core\npytest -q", False, 29),
        ("loader --version", False, 38),  # console: the prompt lines only
    ]
    assert [c.run for c in task.verify.commands] == [
        "cd packages/core\npytest -q",
        "loader --version",
    ]
    result = CliRunner().invoke(cli, ["plan", "check", str(path)])
    assert result.exit_code == 0, result.stdout  # it has checks: something to verify against


# ---------------------------------------------------------------- mis-nested fences

NESTED = """\
# Docs Plan

### Task 1: Write the README

**Files:**
- Create: `README.md`

- [ ] **Step 1: Write it**

```markdown
# Tool

## Install

```bash
pip install tool
```

## Use

```bash
tool run
```
```

- [ ] **Step 2: Check it renders**

Run: `grip README.md --export`
Expected: README.html exists

- [ ] **Step 3: Commit**

   ```bash
   git add README.md
```
- [ ] **Step 4: Push**

Run: `git push`
Expected: pushed
"""


def test_steps_after_a_mis_nested_fence_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(NESTED, encoding="utf-8")
    (task,) = [t for _, t in load_plan(path).plan.tasks()]
    assert [s.title for s in task.steps] == [
        "Step 1: Write it",
        "Step 2: Check it renders",
        "Step 3: Commit",
        "Step 4: Push",  # after a closer written less indented than its opener
    ]
    assert [c.run for c in task.verify.commands] == ["grip README.md --export", "git push"]
    assert "## Use" in task.action  # the example stays the task's text


_BLOCK = st.builds(
    lambda info, inner, lines: (info, inner, lines),
    st.sampled_from(["markdown", "md", "text", "html"]),
    st.lists(st.sampled_from(["bash", "python", "json", "sh"]), max_size=3),
    st.integers(min_value=0, max_value=3),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.just(None), _BLOCK), min_size=1, max_size=8))
def test_nested_examples_never_swallow_the_steps_after_them(
    parts: list[tuple[str, list[str], int] | None],
) -> None:
    """Steps (None) and example blocks holding same-length blocks of their own, in any
    order: every step line is structure, every line of every block is fenced."""
    lines: list[str] = []
    steps: list[int] = []
    fenced: list[int] = []
    for part in parts:
        if part is None:
            steps.append(len(lines))
            lines += [f"- [ ] **Step {len(steps)}: do it**", ""]
            continue
        info, inner, extra = part
        start = len(lines)
        lines.append(f"```{info}")
        for language in inner:
            lines += ["text", f"```{language}", "code", "```"]
        lines += ["more"] * extra + ["```"]
        fenced += range(start, len(lines))
        lines.append("")
    doc = Document.from_text("plan.md", "\n".join(lines))
    assert not any(doc.fenced[i] for i in steps)
    assert all(doc.fenced[i] for i in fenced)
    assert doc.unclosed_fences == ()


# ---------------------------------------------------------------- spellings of real GSD trees


def test_dependency_and_file_name_spellings_of_real_trees(tmp_path: Path) -> None:
    """Each spelling below is copied in shape from a public GSD tree where `plan check`
    reported a false error (an unknown or later-phase dependency)."""

    def plan(phase: str, number: str, depends: str, extra: str = "") -> str:
        return gsd_plan(phase, number).replace("depends_on: []", f"depends_on: {depends}{extra}")

    root = tree(
        tmp_path,
        {
            # a file name in depends_on
            "phases/06-overlay/06-01-PLAN.md": plan("06-overlay", "01", "[]"),
            "phases/06-overlay/06-02-PLAN.md": plan("06-overlay", "02", "[06-01-PLAN.md]"),
            # plan ids that are not numbers, named without their phase
            "phases/08-stretch/08-P01-PLAN.md": plan("08-stretch", "P01", "[]"),
            "phases/08-stretch/08-P02-PLAN.md": plan("08-stretch", "P02", "[P01]"),
            # the phase directory's name with the plan number after it
            "phases/78-pbr-maps-active/78-01-PLAN.md": plan("78-pbr-maps-active", "01", "[]"),
            "phases/78-pbr-maps-active/78-02-PLAN.md": plan(
                "78-pbr-maps-active", "02", "[78-pbr-maps-01]"
            ),
            # short file names: `02-PLAN.md` is plan 02 of phase 01; its summary says so
            "phases/01-canvas/00-PLAN.md": plan("01-canvas", "00", "[]"),
            "phases/01-canvas/02-PLAN.md": plan(
                "01-canvas", "02", "[00]", '\nprovides: [zoom, "0" keyboard shortcut]'
            ),
            "phases/01-canvas/01-02-SUMMARY.md": "done\n",
            # quick tasks are no phases: quick 1 beside phase 01, dated quick ids
            "quick/1-fix-typo/1-PLAN.md": gsd_plan("quick"),
            "quick/260423-ics-hall-of-fame/PLAN.md": gsd_plan("quick"),
            "quick/260423-jh8-remove-page/PLAN.md": gsd_plan("quick"),
        },
    )
    result = load_plan(root)
    units = {u.id: u for _, u in result.plan.units()}
    assert units["06-02"].depends_on == ("06-01",)
    assert units["08-P02"].depends_on == ("08-P01",)
    assert units["78-02"].depends_on == ("78-01",)
    assert units["01-02"].depends_on == ("01-00",)
    assert units["01-02"].completed
    assert units["01-02"].extra["provides"] == ["zoom", '"0" keyboard shortcut']
    assert {"quick-1-01", "quick-260423-ics-01", "quick-260423-jh8-01"} <= set(units)
    assert [i for i in check_plan(result.plan) if i.severity.value == "error"] == []


def test_expected_output_labels_a_check_too(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(
        "# P\n\n### Task 1: Detect\n\n**Files:**\n- Create: `t.sh`\n\n"
        "- [ ] **Step 1: Run the detection test**\n\n```bash\n./t.sh\n```\n\n"
        "Expected output: 6 passed, 0 failed.\n\n"
        "- [ ] **Step 2: Read the header**\n\n```sh\nsed -n '1,3p' cli.py\n```\n\n"
        "**Expected output:**\n\n```text\n#!/usr/bin/env python\n```\n",
        encoding="utf-8",
    )
    (task,) = [t for _, t in load_plan(path).plan.tasks()]
    assert [(c.run, c.expect) for c in task.verify.commands] == [
        ("./t.sh", "6 passed, 0 failed."),
        ("sed -n '1,3p' cli.py", "#!/usr/bin/env python"),
    ]
