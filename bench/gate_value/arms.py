"""One problem through one arm, in a throwaway repository, then judged by the hidden tests.

The three arms, with the same implementer, settings, seed and prompt:

* `agent` — the implementer alone (`mergegate agent run`, the prompt `mergegate run` would
  give it), its first answer taken as done: "merged" when the agent run ended `ok`.
* `checks` — `mergegate run` with `review.mode = off`: the visible check after the task, its
  failures fed back in fix rounds bounded by `review.max_rounds` (the same cap and stall rule
  as the review's), and a merge on implementer success and passing checks. That is what most
  agent loops do, expressed with the same engine, prompts and caps as the third arm, so the
  only difference between the two is the review.
* `mergegate` — `mergegate run` with the visible check, the two-stage review and fix rounds.

Everything an agent can reach is in the problem's repository (the stub, a .gitignore) and its
prompt (the task block: the HumanEval prompt and the check commands). The hidden tests are run
by `hidden.run_hidden` afterwards, on what reached the integration branch (or, for work that
did not merge, on the unit's last commit), in a directory of their own.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gate_value import hidden
from gate_value.problems import SOLUTION_FILE, Example, Problem, plan_yaml
from mergegate.agents.local import ServerSettings, local_server
from mergegate.engine import task_spec
from mergegate.implementer import implementer_prompt
from mergegate.plans import load_plan
from mergegate.review.reports import fence

ARMS = ("agent", "checks", "mergegate")
AGENTS_DIR = Path(__file__).parent / "agents"
LOCAL_MODELS = {"0.5b": "qwen2.5-coder-0.5b", "1.5b": "qwen2.5-coder-1.5b"}


@dataclass(frozen=True)
class Setup:
    """What every arm of one bench run shares."""

    work: Path
    implementer: str
    """`sloppy` (the scripted implementer) or `local`."""
    reviewer: str
    """`examples` (the scripted reviewer) or `local`."""
    model: str | None
    """`0.5b` or `1.5b` for the `local` agents; None when both are scripted."""
    seed: int
    max_rounds: int
    agent_timeout_s: int
    server_url: str | None = None
    """The one llama.cpp server of the bench run (`model_server`), shared by every agent call of
    every arm: the model is loaded once, and the first prompt — the same in all three arms — is
    read once per problem. None: each mergegate process loads its own."""


@dataclass(frozen=True)
class Prepared:
    """A problem ready to run: its visible examples and, for the sloppy implementer, its
    answers (`right_first`: whether the first answer is the right one)."""

    problem: Problem
    examples: list[Example]
    checks: list[str]
    answers: dict[str, Any] | None = None
    right_first: bool | None = None
    first_fails_visible: bool | None = None


@dataclass
class Outcome:
    """One problem through one arm."""

    task_id: str
    arm: str
    exit_code: int
    status: str
    merged: bool
    passes_hidden: bool
    """Whether the work at the end (merged, or the unit's last commit) passes the hidden tests."""
    first_passes_hidden: bool | None
    """Whether the implementer's first answer did (None when it left no commit)."""
    wall_s: float
    tokens: int | None
    implementer_calls: int | None = None
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    )
    return done.stdout


def git_file(repo: Path, ref: str, path: str = SOLUTION_FILE) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"{ref}:{path}"],
        check=False,
        capture_output=True,
        text=True,
    )
    return done.stdout if done.returncode == 0 else None


def make_repository(root: Path, problem: Problem) -> Path:
    """A fresh repository holding the stub (and a .gitignore for bytecode): nothing else."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "gate-value bench")
    git(repo, "config", "commit.gpgsign", "false")
    (repo / SOLUTION_FILE).write_text(problem.stub(), encoding="utf-8")
    (repo / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"{problem.task_id}: the stub")
    return repo


def environment(
    setup: Setup, state: Path, *, review_off: bool, answers: Path | None = None
) -> dict[str, str]:
    """The child's environment: its own state directory, the model and seed of the `local`
    backend, at most two `agent-result` asks (each is a whole generation on 2 cores).

    The scripted implementer counts its calls in a log beside its `answers` file (a fix round
    is its second call); agents run in a sandbox whose /tmp is private and whose other paths
    are read-only, so that folder is opened to it (`[sandbox] allow`) — and nothing else is.
    Without it the log is lost after each call, every call is a first call, and no wrong
    answer is ever repaired."""
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(state), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("MERGEGATE_SANDBOX__ALLOW", None)
    if answers is not None:
        env["MERGEGATE_SANDBOX__ALLOW"] = json.dumps([str(answers.parent)])
    env["MERGEGATE_RETRY__MAX_ATTEMPTS"] = '{"agent-result" = 2}'
    if setup.model in LOCAL_MODELS:
        env["MERGEGATE_AGENTS__BACKENDS__LOCAL__MODEL"] = LOCAL_MODELS[setup.model]
        env["MERGEGATE_AGENTS__BACKENDS__LOCAL__SEED"] = str(setup.seed)
        if setup.server_url is not None:
            env["MERGEGATE_AGENTS__BACKENDS__LOCAL__SERVER_URL"] = setup.server_url
    if review_off:
        env["MERGEGATE_REVIEW__MODE"] = "off"
    return env


def model_server(model: str) -> str:
    """Start the bench's one llama.cpp server for `model` (`0.5b`, `1.5b`) in this process, with
    the `local` backend's default settings; its loopback URL. It stops when the bench exits."""
    return local_server(ServerSettings(model=LOCAL_MODELS[model])).address


def implementer_command(answers_file: Path) -> str:
    script = AGENTS_DIR / "sloppy_implementer.py"
    return (
        f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(answers_file))}"
    )


def reviewer_command() -> str:
    script = AGENTS_DIR / "examples_reviewer.py"
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def write_answers(root: Path, prepared: Prepared) -> Path:
    """The sloppy implementer's answers for this problem and arm, outside the repository."""
    path = root / "answers.json"
    path.write_text(json.dumps(prepared.answers), encoding="utf-8")
    return path


def implementer_calls(root: Path) -> int | None:
    log = root / "answers.log.jsonl"
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else None


def run_problem(setup: Setup, prepared: Prepared, arm: str) -> Outcome:
    """`prepared` through `arm`, in `setup.work/<arm>/<he-NNN>/`; judged by the hidden tests."""
    root = setup.work / arm / prepared.problem.slug
    shutil.rmtree(root, ignore_errors=True)  # left by an interrupted run: this job runs again
    repo = make_repository(root, prepared.problem)
    plan = root / "plan.yaml"
    plan.write_text(plan_yaml(prepared.problem, prepared.checks), encoding="utf-8")
    answers = write_answers(root, prepared) if setup.implementer == "sloppy" else None
    if arm == "agent":
        outcome = _agent_arm(setup, prepared, root=root, repo=repo, plan=plan, answers=answers)
    else:
        outcome = _run_arm(setup, prepared, arm, root=root, repo=repo, plan=plan, answers=answers)
    outcome.implementer_calls = implementer_calls(root)
    return outcome


def agent_prompt(plan_path: Path, stub: str) -> str:
    """The prompt `mergegate run` gives the implementer for the plan's one task."""
    plan = load_plan(plan_path).plan
    phase = plan.phases[0]
    unit = phase.units[0]
    task = unit.tasks[0]
    files = f"### {SOLUTION_FILE}\n\n" + fence(stub, "")
    spec = task_spec(plan, phase, unit, task)
    return implementer_prompt(task_id=task.id, spec=spec, files=files).text


def _agent_arm(
    setup: Setup, prepared: Prepared, *, root: Path, repo: Path, plan: Path, answers: Path | None
) -> Outcome:
    prompt = root / "prompt.txt"
    prompt.write_text(agent_prompt(plan, prepared.problem.stub()), encoding="utf-8")
    argv = [sys.executable, "-m", "mergegate", "agent", "run", "--cwd", str(repo)]
    argv += ["--prompt-file", str(prompt), "--format", "json"]
    argv += ["--timeout", str(setup.agent_timeout_s), "--attempt-dir", str(root / "attempt")]
    if answers is not None:
        argv += ["--backend", "command", "--cmd", implementer_command(answers)]
    else:
        argv += ["--backend", "local"]
    env = environment(setup, root / "state", review_off=False, answers=answers)
    started = time.monotonic()
    done = subprocess.run(argv, check=False, capture_output=True, text=True, env=env)
    wall = time.monotonic() - started
    result = _json_object(done.stdout)
    module = (
        (repo / SOLUTION_FILE).read_text(encoding="utf-8")
        if (repo / SOLUTION_FILE).exists()
        else None
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the agent's answer", "--allow-empty")
    passes = hidden.run_hidden(prepared.problem, module).passed
    status = str(result.get("status", "no result")) if result else "no result"
    return Outcome(
        task_id=prepared.problem.task_id,
        arm="agent",
        exit_code=done.returncode,
        status=status,
        merged=done.returncode == 0,
        passes_hidden=passes,
        first_passes_hidden=passes,
        wall_s=wall,
        tokens=_usage_tokens(result.get("usage") if result else None),
        reason=str(result.get("error") or "") if result else done.stderr[-300:],
    )


def _run_arm(
    setup: Setup,
    prepared: Prepared,
    arm: str,
    *,
    root: Path,
    repo: Path,
    plan: Path,
    answers: Path | None,
) -> Outcome:
    argv = [sys.executable, "-m", "mergegate", "run", str(plan), "--repo", str(repo)]
    argv += ["--format", "json", "--progress", "none", "--max-rounds", str(setup.max_rounds)]
    argv += ["--concurrency", "1"]
    if answers is not None:
        argv += ["--implementer-cmd", implementer_command(answers)]
    else:
        argv += ["--implementer", "local"]
    if setup.reviewer == "examples":
        argv += ["--reviewer-cmd", reviewer_command()]
    else:
        argv += ["--reviewer", "local"]
    env = environment(setup, root / "state", review_off=arm == "checks", answers=answers)
    started = time.monotonic()
    done = subprocess.run(argv, check=False, capture_output=True, text=True, env=env)
    wall = time.monotonic() - started
    result = _json_object(done.stdout) or {}
    unit = (result.get("units") or [{}])[0]
    merged = bool(unit.get("merge_commit"))
    final_ref = result.get("into") if merged else unit.get("branch")
    module = git_file(repo, str(final_ref)) if final_ref else None
    first = _first_answer(repo, unit.get("branch"))
    metrics = result.get("metrics") or {}
    return Outcome(
        task_id=prepared.problem.task_id,
        arm=arm,
        exit_code=done.returncode,
        status=str(unit.get("status") or result.get("status") or "no result"),
        merged=merged,
        passes_hidden=hidden.run_hidden(prepared.problem, module).passed,
        first_passes_hidden=None
        if first is None
        else hidden.run_hidden(prepared.problem, first).passed,
        wall_s=wall,
        tokens=_int_or_none(metrics.get("tokens")),
        reason=str(unit.get("reason") or result.get("message") or done.stderr[-300:]),
        extra={"fix_rounds": metrics.get("fix_rounds"), "run_status": result.get("status")},
    )


def _first_answer(repo: Path, branch: object) -> str | None:
    """solution.py at the unit's first commit: the implementer's first answer."""
    if not isinstance(branch, str) or not branch:
        return None
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--reverse", f"main..{branch}"],
        check=False,
        capture_output=True,
        text=True,
    )
    commits = done.stdout.split()
    return git_file(repo, commits[0]) if done.returncode == 0 and commits else None


def _json_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    if start < 0:
        return None
    try:
        value = json.loads(text[start:])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _usage_tokens(usage: object) -> int | None:
    if not isinstance(usage, dict):
        return None
    counts = [v for k, v in usage.items() if "tokens" in k and isinstance(v, int)]
    return sum(counts) if counts else None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
