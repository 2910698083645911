"""Run the composite action (action.yml) the way a GitHub runner does, without `act`.

Each `run:` step is written to a file and run with `bash --noprofile --norc -eo pipefail`,
the runner's own command line for `shell: bash`, with the runner's files (GITHUB_OUTPUT,
GITHUB_PATH, GITHUB_STEP_SUMMARY, RUNNER_TEMP) in a temporary directory. `${{ }}` expressions
in `env:` and `outputs:` are evaluated for the two forms the action may use —
`inputs.NAME` and `steps.ID.outputs.NAME` — and anything else fails the test, so the action
stays within what this runner proves. A failing step skips the rest, as on GitHub.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_INPUT = re.compile(r"inputs\.([A-Za-z0-9_-]+)")
_STEP_OUTPUT = re.compile(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)")


def load_action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    return data


@dataclass
class ActionRun:
    """What happened: per step its exit code and output; the action's outputs; the summary."""

    steps: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    failed_step: str | None = None

    @property
    def ok(self) -> bool:
        return self.failed_step is None

    def log(self) -> str:
        return "\n".join(p.stdout + p.stderr for p in self.steps.values())


def _read_outputs(path: Path) -> dict[str, str]:
    outputs: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            i += 1
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
        i += 1
    return outputs


def _evaluate(text: str, inputs: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        if found := _INPUT.fullmatch(expression):
            return inputs[found.group(1)]
        if found := _STEP_OUTPUT.fullmatch(expression):
            return steps.get(found.group(1), {}).get(found.group(2), "")
        raise AssertionError(f"the test runner does not evaluate ${{{{ {expression} }}}}")

    return _EXPR.sub(one, str(text))


def run_action(inputs: dict[str, str], env: dict[str, str], cwd: Path, runner: Path) -> ActionRun:
    """Run every step of action.yml in `cwd`; `runner` holds the runner's files."""
    action = load_action()
    given = set(inputs) - set(action["inputs"])
    assert not given, f"unknown inputs {given}"
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values.update(inputs)
    runner.mkdir(parents=True, exist_ok=True)
    temp = runner / "temp"
    temp.mkdir(exist_ok=True)
    summary = runner / "step_summary.md"
    github_path = runner / "github_path"
    github_path.touch()
    result = ActionRun()
    step_outputs: dict[str, dict[str, str]] = {}
    for index, step in enumerate(action["runs"]["steps"]):
        assert step["shell"] == "bash"
        output_file = runner / f"output-{index}"
        output_file.touch()
        added = [p for p in github_path.read_text().splitlines() if p]
        step_env = {
            **env,
            "PATH": os.pathsep.join([*reversed(added), env.get("PATH", os.environ["PATH"])]),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_ACTIONS": "true",
            "CI": "true",
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_PATH": str(github_path),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(temp),
            **{k: _evaluate(v, values, step_outputs) for k, v in step.get("env", {}).items()},
        }
        script = runner / f"step-{index}.sh"
        script.write_text(step["run"])
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd,
            env=step_env,
            capture_output=True,
            text=True,
            check=False,
        )
        result.steps[step["name"]] = proc
        if "id" in step:
            step_outputs[step["id"]] = _read_outputs(output_file)
        if proc.returncode != 0:
            result.failed_step = step["name"]
            break
    result.outputs = {
        name: _evaluate(spec["value"], values, step_outputs)
        for name, spec in action["outputs"].items()
    }
    result.summary = summary.read_text() if summary.exists() else ""
    return result
