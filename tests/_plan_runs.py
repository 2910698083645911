"""Helpers for `mergegate run` tests: a repository, plans built in Python, scripted agents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from _gitrepo import git, write_files
from _verdict_object import finding, verdict_object
from mergegate.cli import cli
from mergegate.plans import Check, Phase, Plan, PlanFormat, Task, Unit

__all__ = [
    "AGENT",
    "agent",
    "approve",
    "events",
    "invoke",
    "live_agents",
    "make_plan",
    "repo_with",
    "run_args",
    "spawn",
    "trailers",
    "with_fixes",
]

AGENT = Path(__file__).parent / "fakes" / "run_agent.py"


def repo_with(root: Path, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write_files(root, files or {"README.md": "base\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def make_plan(phases: dict[str, dict[str, Any]], title: str = "test plan") -> Plan:
    """{"P1": {"U1": {"tasks": ["T1", ...], "depends_on": [...], "checks": {"T1": ["cmd"]}}}}

    A task without checks of its own gets `true`: a plan needs a program check to verify each
    phase against (a phase nothing can check is never verified), and these tests are about
    everything else."""
    built = []
    for pid, units in phases.items():
        built_units = []
        for uid, spec in units.items():
            tasks = []
            for tid in spec.get("tasks", ["T1"]):
                kind = "checkpoint:human-verify" if tid.startswith("CP") else "auto"
                given = spec.get("checks", {}).get(tid, ["true"])
                checks = tuple(Check(run=c) for c in given) if kind == "auto" else ()
                tasks.append(
                    Task(
                        id=tid,
                        name=f"do {tid}",
                        type=kind,
                        action=f"Make {uid} {tid}.",
                        checks=checks,
                    )
                )
            built_units.append(
                Unit(
                    id=uid,
                    name=f"unit {uid}",
                    depends_on=tuple(spec.get("depends_on", ())),
                    tasks=tuple(tasks),
                )
            )
        built.append(Phase(id=pid, name=f"phase {pid}", units=tuple(built_units)))
    return Plan(format=PlanFormat.NATIVE, title=title, phases=tuple(built))


def approve() -> dict[str, Any]:
    return {"text": "APPROVE"}


def with_fixes(*titles: str) -> dict[str, Any]:
    """A "With fixes" review listing one important finding per title (default: one)."""
    findings = [
        finding(f"F-{i}", title=t, file="x.py", detail="do it")
        for i, t in enumerate(titles or ("Missing test",), start=1)
    ]
    return {"text": verdict_object("request_changes", findings)}


def agent(tmp_path: Path, name: str, script: dict[str, Any] | None = None) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(script or {}))
    return f"{sys.executable} {AGENT} {path} {tmp_path / (name + '-state')}"


def events(tmp_path: Path, name: str) -> list[dict[str, Any]]:
    log = tmp_path / f"{name}-state" / "log.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def invoke(
    args: list[str], plan: Plan | None = None, tmp_path: Path | None = None
) -> tuple[int, dict[str, Any] | None, str]:
    """Run the CLI in-process; (exit code, the JSON object printed or None, stderr)."""
    argv = list(args)
    if plan is not None:
        assert tmp_path is not None
        plan_file = tmp_path / "plan.json"
        plan_file.write_text(plan.model_dump_json(by_alias=True))
        argv.insert(1, str(plan_file))
    result = CliRunner().invoke(cli, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    out = result.stdout.strip()
    parsed = json.loads(out) if out.startswith("{") else None
    return result.exit_code, parsed, result.stderr


def run_args(repo: Path, impl: str, rev: str | None, *extra: str) -> list[str]:
    """`mergegate run` in `repo` with command agents, JSON out and no progress display;
    `extra` after them (the plan file, or `invoke` puts it in). No reviewer when `rev` is
    None."""
    args = ["run", "--repo", str(repo), "--implementer-cmd", impl]
    args += ["--format", "json", "--progress", "none"]
    args += ["--reviewer-cmd", rev] if rev else []
    return args + list(extra)


def spawn(args: list[str], env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """`python -m mergegate ARGS` as a process of its own (a kill reaches only it), with
    this environment plus `env`; stdout and stderr piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "mergegate", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def live_agents(marker: str = "", *, under: Path | None = None) -> list[int]:
    """Pids of the live scripted agents (not zombies) whose command line holds `marker` and,
    with `under`, whose working directory is below that folder."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cwd = os.readlink(entry / "cwd") if under is not None else ""
        except OSError:
            continue
        if "run_agent.py" not in cmdline or marker not in cmdline or state == "Z":
            continue
        if under is None or cwd.startswith(str(under)):
            found.append(int(entry.name))
    return found


def trailers(repo: Path, branch: str) -> list[str]:
    log = git(repo, "log", "--format=%B", branch)
    return [line for line in log.splitlines() if line.startswith("Mergegate-Unit:")]
