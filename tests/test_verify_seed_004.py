"""Issue 25 items 13-15 through the CLI, on a GSD planning tree in a git repository: the seed
004 rows they close are named in each test's docstring."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from _gitrepo import git, write_files
from mergegate.cli import cli

ROADMAP = """\
# Roadmap: Greeter

## Phase Details

### Phase 1: Greet
**Goal**: A greeting exists

### Phase 2: Farewell
**Goal**: A farewell exists
"""


def gsd_plan(phase: str, path: str) -> str:
    return textwrap.dedent(
        f"""\
        ---
        phase: {phase}
        plan: 01
        type: execute
        wave: 1
        depends_on: []
        files_modified: [{path}]
        autonomous: true
        must_haves:
          artifacts:
            - path: "{path}"
              contains: "def "
        ---

        <objective>
        Write {path}.
        </objective>

        <tasks>

        <task type="auto">
          <name>Task 1: Write {path}</name>
          <files>{path}</files>
          <action>Write {path}.</action>
          <verify>
            <automated>test -f {path}</automated>
          </verify>
        </task>

        </tasks>
        """
    )


PLANNING = {
    ".planning/ROADMAP.md": ROADMAP,
    ".planning/phases/01-greet/01-01-PLAN.md": gsd_plan("01-greet", "greet.py"),
    ".planning/phases/01-greet/01-01-SUMMARY.md": "---\nphase: 01-greet\n---\ndone\n",
    ".planning/phases/02-farewell/02-01-PLAN.md": gsd_plan("02-farewell", "bye.py"),
    ".planning/phases/02-farewell/02-01-SUMMARY.md": "---\nphase: 02-farewell\n---\ndone\n",
}


def _repo(root: Path, code: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write_files(root, PLANNING)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "plans")
    write_files(root, code)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "code")
    return root


GOOD = {
    "greet.py": "def greet(name):\n    return f'hello {name}'\n",
    "bye.py": "def bye(name):\n    return f'bye {name}'\n",
    "main.py": "from bye import bye\nfrom greet import greet\n\nprint(greet('a'), bye('b'))\n",
}


def _verify(repo: Path, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        [
            "verify",
            str(repo / ".planning"),
            "--repo",
            str(repo),
            "--no-input",
            "--no-gsd-copy",
            "--report-dir",
            str(tmp_path / "reports"),
            *args,
        ],
    )
    return result.exit_code, result.stdout, result.stderr


def test_without_phase_the_current_phase_from_state_md_is_verified(tmp_path: Path) -> None:
    """Seed 004, /mz:verify flow step 3: "Determine target phase (arg or current)"; GSD's
    STATE.md names the current position, and the CLI says which phase it picked."""
    repo = _repo(tmp_path / "repo", GOOD)
    write_files(repo, {".planning/STATE.md": "# State\n\n## Current Position\n\nPhase: 2 of 2\n"})
    code, out, err = _verify(repo, tmp_path)
    assert "verifying phase 02 (the current phase in STATE.md:5" in err
    assert code == 0, out


def test_without_phase_or_state_the_first_phase_not_yet_verified(tmp_path: Path) -> None:
    """Seed 004: the current phase is the first one not yet verified."""
    repo = _repo(tmp_path / "repo", GOOD)
    report = "---\nphase: 01-greet\nstatus: passed\n---\n# Verified\n"
    write_files(repo, {".planning/phases/01-greet/01-VERIFICATION.md": report})
    code, _, err = _verify(repo, tmp_path)
    assert "verifying phase 02 (the first phase not yet verified" in err
    assert code == 0


def test_the_placeholder_scan_covers_every_file_the_phase_changed(tmp_path: Path) -> None:
    """Seed 004, verifier step 7: "Scan for anti-patterns in phase files" — every file the
    phase changed, not only its declared artifacts."""
    code_files = {**GOOD, "helpers.py": "def later():\n    raise NotImplementedError\n"}
    repo = _repo(tmp_path / "repo", code_files)
    code, out, err = _verify(repo, tmp_path, "--phase", "2")
    assert code == 1, out + err
    assert "GAPS_FOUND" in out
    assert "phase-02.placeholders" in out
    assert "helpers.py: raises NotImplementedError in later" in out


@pytest.mark.parametrize("broken", ["missing", "stub"])
def test_gaps_found_prints_each_gap_with_a_next_step(tmp_path: Path, broken: str) -> None:
    """Seed 004, /mz:verify step 7: "gaps_found: display gaps, suggest fixes" — which task
    to rerun, which file lacks what."""
    code_files = dict(GOOD)
    if broken == "missing":
        del code_files["bye.py"]
    else:
        code_files["bye.py"] = "# TODO: write the farewell\n"
    repo = _repo(tmp_path / "repo", code_files)
    code, out, _ = _verify(repo, tmp_path, "--phase", "2")
    assert code == 1
    lines = out.splitlines()
    gaps = [i for i, line in enumerate(lines) if "✗" in line]
    assert gaps
    for i in gaps:
        following = lines[i + 1 : i + 5]
        assert any("next step:" in line for line in following), lines[i : i + 5]
    assert "rerun task 1 of 02-01" in out
