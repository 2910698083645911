"""`mergegate plan show|check` and `mergegate schema plan` through the real command group."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from mergegate.cli import cli

PLAN = """\
mergegate_plan: 1
title: "Demo \\e]0;pwned\\aplan"
phases:
  - id: "1"
    name: One
    goal: Ship it
    success_criteria: [it ships]
    units:
      - id: a
        wave: 1
        files: [src/x.py]
        must_haves: {truths: [x works]}
        tasks:
          - {id: "1", name: "Build \\e[2Jit", done: built, files: [src/x.py]}
          - {id: "2", name: Look at it, type: "checkpoint:human-verify"}
      - id: b
        wave: 1
        files: [src/x.py]
        acceptance_criteria: [y works]
        tasks:
          - {id: "1", name: Other, verify: {commands: [make test]}}
"""


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, text: str, name: str = "plan.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_show_text_is_a_plain_tree_off_a_terminal(tmp_path: Path) -> None:
    code, out, err = invoke("plan", "show", str(write(tmp_path, PLAN)))
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    # The OSC sequence (set the window title) is dropped whole, not just its ESC.
    assert lines[0] == "plan: Demo plan (native; 1 phases, 2 units, 3 tasks)"
    assert lines[1].startswith("phase 1: One")
    assert "  goal: Ship it" in lines
    assert "  wave 1" in lines
    assert any(line.startswith("    unit a") and "plan.yaml:9" in line for line in lines)
    assert "      task 1 [auto] Build it  plan.yaml:14" in lines
    assert "\x1b" not in out
    assert "\x07" not in out


def test_show_json_is_the_model(tmp_path: Path) -> None:
    code, out, _ = invoke("plan", "show", str(write(tmp_path, PLAN)), "--format", "json")
    assert code == 0
    assert "\x1b" not in out
    data = json.loads(out)
    assert data["format"] == "native"
    (phase,) = data["phases"]
    assert {"id", "name", "success_criteria", "units"} <= phase.keys()
    unit = phase["units"][0]
    assert {"id", "wave", "depends_on", "must_haves", "source", "tasks"} <= unit.keys()
    assert unit["source"] == {"file": "plan.yaml", "line": 9}
    task = unit["tasks"][0]
    assert {"name", "type", "files", "action", "verify", "done", "source"} <= task.keys()
    assert task["name"] == "Build \x1b[2Jit"  # JSON keeps the text, escaped
    schema = json.loads(invoke("schema", "plan")[1])
    jsonschema.validate(data, schema)


def test_check_exit_codes(tmp_path: Path) -> None:
    path = write(tmp_path, PLAN)
    code, out, _ = invoke("plan", "check", str(path))
    assert code == 0
    assert "plan.yaml:15: info: checkpoint:human-verify in unit a" in out
    assert "warning: units a (plan.yaml:9) and b run together" in out
    assert out.splitlines()[-1] == "0 error(s), 1 warning(s), 1 checkpoint(s)"
    assert invoke("plan", "check", str(path), "--strict")[0] == 1
    code, out, _ = invoke("plan", "check", str(path), "--format", "json")
    payload = json.loads(out)
    assert (payload["ok"], payload["errors"], payload["warnings"]) == (True, 0, 1)
    broken = write(
        tmp_path,
        PLAN.replace(
            "wave: 1\n        files: [src/x.py]\n        acceptance",
            "depends_on: [zzz]\n        acceptance",
        ),
        "broken.yaml",
    )
    code, out, _ = invoke("plan", "check", str(broken))
    assert code == 2
    assert "broken.yaml:16: error: unit b depends on 'zzz'" in out


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    notes = write(tmp_path, "# Notes\n\nJust prose.\n", "notes.md")
    for command in ("show", "check"):
        code, out, err = invoke("plan", command, str(notes))
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1
        assert err.startswith("mergegate: error: notes.md:1: not a recognised plan")
    code, _, err = invoke("plan", "show", str(tmp_path / "missing"))
    assert code == 2
    assert "does not exist" in err


def test_import_warnings_go_to_stderr_with_file_and_line(tmp_path: Path) -> None:
    text = (
        "---\nphase: 01-a\nplan: 01\n---\n<tasks>\n"
        '<task type="auto"><name>A</name><done>d</done></task>\n</tasks>\n'
    )
    path = write(tmp_path, text, "01-01-PLAN.md")
    code, out, err = invoke("plan", "show", str(path))
    assert code == 0
    assert "mergegate: 01-01-PLAN.md:1: warning: no `wave` in frontmatter" in err
    assert "task 1 [auto] A  01-01-PLAN.md:6" in out


def test_schema_lists_and_prints_the_plan_model() -> None:
    code, out, _ = invoke("schema")
    assert code == 0
    assert any(line.startswith("plan ") for line in out.splitlines())
    schema = json.loads(invoke("schema", "plan")[1])
    assert schema["title"] == "Plan"
    assert "Unit" in schema["$defs"]
    assert invoke("schema", "plan", "--template")[0] == 2


def test_show_on_the_corpus_matches_the_library(shared_dir: Path) -> None:
    tree = shared_dir / "corpus" / "plans" / "gsd" / "Sh3rd3n__megazord" / ".planning"
    code, out, _ = invoke("plan", "show", str(tree), "--format", "json")
    assert code == 0
    data = json.loads(out)
    files = [t["source"]["file"] for p in data["phases"] for u in p["units"] for t in u["tasks"]]
    assert "milestones/v1.0-phases/05-code-review-and-verification/05-01-PLAN.md" in files
    assert all(not f.startswith("/") for f in files)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminal")
def test_rich_tree_on_a_terminal(tmp_path: Path) -> None:
    # A real pseudo-terminal: the rich tree, still without the plan's escape sequences.
    script = (
        "import pty, os, sys\n"
        "pid, fd = pty.fork()\n"
        "if pid == 0:\n"
        "    argv = [sys.executable, '-m', 'mergegate', 'plan', 'show']\n"
        f"    os.execv(sys.executable, [*argv, {str(write(tmp_path, PLAN))!r}])\n"
        "out = b''\n"
        "while True:\n"
        "    try:\n"
        "        chunk = os.read(fd, 4096)\n"
        "    except OSError:\n"
        "        break\n"
        "    if not chunk:\n"
        "        break\n"
        "    out += chunk\n"
        "os.waitpid(pid, 0)\n"
        "sys.stdout.write(out.decode('utf-8', 'replace'))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "200"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert "├──" in result.stdout or "└──" in result.stdout
    assert "Build it" in result.stdout
    assert "plan: Demo plan" in result.stdout
    assert "pwned" not in result.stdout


def test_unreadable_frontmatter_shows_the_rest_and_exits_2(tmp_path: Path) -> None:
    phase = tmp_path / ".planning" / "phases" / "01-a"
    phase.mkdir(parents=True)
    (phase / "01-01-PLAN.md").write_text(
        '---\nplan: [01\n---\n<task type="auto"><name>A</name><done>d</done></task>\n',
        encoding="utf-8",
    )
    code, out, err = invoke("plan", "show", str(tmp_path), "--format", "json")
    assert code == 2
    assert err.startswith("mergegate: .planning/phases/01-a/01-01-PLAN.md:2: error: frontmatter")
    data = json.loads(out)
    assert data["phases"][0]["units"][0]["tasks"][0]["name"] == "A"
    code, out, _ = invoke("plan", "check", str(tmp_path))
    assert code == 2
    assert out.splitlines()[0].startswith(".planning/phases/01-a/01-01-PLAN.md:2: error:")
