"""A scripted agent for `mergegate run` tests (driven by the `command` backend).

Usage: run_agent.py SCRIPT.json STATE_DIR

It works out where it is from what mergegate gives it: the unit from the task block in its
prompt, else from its working directory (the unit's work tree is named after the unit), the
task from `# Task <id>:` in the prompt (a fix prompt reuses the unit's last task), and the
kind from the environment and prompt:
`review` (MERGEGATE_REVIEW_ID is set), `fix` (a fix prompt), `advise` (an advisor's request)
or `implement` (the task's prompt, an ask again for its result, or the advice that resumes it).

SCRIPT maps "<unit>/<task>" (or "*") to {"implement": [...], "fix": [...], "review": [...]};
each new attempt takes the next step of its list (the last one repeats); an attempt run again
after a crash (the same attempt folder) takes the step it took before. A step is
  {"text": "...", "write": {"path": "content"}, "sleep": 0.5, "exit": 0}
Defaults (for keys a step leaves out): implement writes `<unit>-<task>.txt` and ends with a
valid `agent-result` for MERGEGATE_TASK_ID; review approves; advise answers
`{"guidance": "...", "action": "continue"}`; fix rewrites that file (with the name of its
attempt folder, so a fix step run again after a crash writes the same content).
`{review_id}` in a text becomes the nonce mergegate asked for, `{scope}` the scope its verdict
object must name (MERGEGATE_REVIEW_SCOPE), `{result}` a valid `agent-result` for the task
(success). A reviewer approves with a verdict object; an implementer's default answer is its
`agent-result` alone (its whole stdout is the typed answer).

Every call appends `start` and `end` lines (JSON: kind, unit, task, n, review_id, attempt (the
attempt folder mergegate gave it), session (MERGEGATE_SESSION_ID), head (the prompt's first
line), run_id and task_id (MERGEGATE_RUN_ID, MERGEGATE_TASK_ID), pid, time, spawned (when the
kernel created this process, before the interpreter's start-up))
to STATE_DIR/log.jsonl, so tests can check overlap and count invocations.
"""

import fcntl
import json
import os
import pathlib
import re
import sys
import time


def spawned() -> float:
    """When this process was created, by the kernel's record (`/proc`, 10 ms ticks): the
    attempt's real start. The interpreter's own start-up comes after it, and a loaded machine
    can stretch that past a SIGKILL of the orchestrator that spawned it."""
    fields = pathlib.Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    return time.time() - age


SPAWNED = spawned()
# When mergegate began this attempt: it writes the prompt file before it starts the sandbox
# that then forks this process, so a kill of the orchestrator can land between the two.
BEGUN = os.stat(os.environ["MERGEGATE_PROMPT_FILE"]).st_mtime


def approve() -> str:
    return json.dumps(
        {
            "review_id": "{review_id}",
            "scope": "{scope}",
            "verdict": "approve",
            "conditions": [],
            "findings": [],
            "summary": "no issues",
            "confidence": 0.9,
        }
    )


script = json.loads(pathlib.Path(sys.argv[1]).read_text())
state = pathlib.Path(sys.argv[2])
state.mkdir(parents=True, exist_ok=True)
prompt = pathlib.Path(os.environ["MERGEGATE_PROMPT_FILE"]).read_text()
review_id = os.environ.get("MERGEGATE_REVIEW_ID", "")
scope = os.environ.get("MERGEGATE_REVIEW_SCOPE", "")
# A reviewer works in a throwaway checkout: the task block in its prompt names the unit.
named = re.search(r"; phase \S+; unit (\S+)", prompt)
unit = named.group(1) if named else pathlib.Path.cwd().name
if review_id:
    kind = "review"
elif prompt.startswith("You are an advisor"):
    kind = "advise"
elif prompt.startswith(("A code review of your change", "The checks mergegate ran")):
    kind = "fix"
else:
    kind = "implement"

# The attempt this call is (its folder; a step run again after a crash gets the same one, or
# the same with `-rerunN`): a call repeating an attempt takes the same scripted step, so the
# agent's answers follow mergegate's steps, not how many times a crash made it start.
attempt_path = str(pathlib.Path(os.environ["MERGEGATE_PROMPT_FILE"]).parent)
identity = re.sub(r"-rerun\d+$", "", attempt_path)
attempt = pathlib.Path(identity).name

with (state / "lock").open("a") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    counts_file = state / "counts.json"
    counts = json.loads(counts_file.read_text()) if counts_file.exists() else {}
    found = re.search(r"^# Task (\S+):", prompt, re.M)
    task = found.group(1) if found else counts.get(f"last/{unit}", "?")
    counts[f"last/{unit}"] = task
    key = f"{unit}/{task}/{kind}"
    if f"seen/{identity}" in counts:
        n = counts[f"seen/{identity}"]
    else:
        n = counts[key] = counts.get(key, 0) + 1
        counts[f"seen/{identity}"] = n
    # Atomically: a crash test's SIGKILL of the orchestrator takes this agent down with it
    # (its sandbox dies with its parent), and a write cut between truncation and data left
    # the next agent an empty file to parse.
    partial = state / f"counts.json.{os.getpid()}.tmp"
    partial.write_text(json.dumps(counts))
    os.replace(partial, counts_file)
    fcntl.flock(lock, fcntl.LOCK_UN)


def log(event: str) -> None:
    line = {
        "event": event,
        "kind": kind,
        "unit": unit,
        "task": task,
        "n": n,
        "review_id": review_id,
        "attempt": attempt_path,
        "session": os.environ.get("MERGEGATE_SESSION_ID", ""),
        "run_id": os.environ.get("MERGEGATE_RUN_ID", ""),
        "task_id": os.environ.get("MERGEGATE_TASK_ID", ""),
        "head": prompt.splitlines()[0][:200] if prompt else "",
        "pid": os.getpid(),
        "time": time.time(),
        "spawned": SPAWNED,
        "begun": BEGUN,
    }
    with (state / "log.jsonl").open("a") as handle:
        handle.write(json.dumps(line) + "\n")


log("start")
entry = script.get(f"{unit}/{task}") or script.get("*") or {}
steps = entry.get(kind) or []
step = steps[min(n, len(steps)) - 1] if steps else {}
task_id = os.environ.get("MERGEGATE_TASK_ID", task)
result = json.dumps({"task_id": task_id, "success": True, "completed_normally": True})
advice = {"guidance": "Write the file and finish.", "action": "continue"}
defaults = {
    "implement": {"write": {f"{unit}-{task}.txt": f"{unit} {task}\n"}, "text": "{result}"},
    "advise": {"text": json.dumps(advice)},
    "review": {"text": "APPROVE"},
    # named after the attempt (not the call count): a step run again after a crash writes the
    # same content, as a deterministic agent would
    "fix": {"write": {f"{unit}-{task}.txt": f"{unit} {task} fixed {attempt}\n"}, "text": "fixed"},
}
step = {**defaults[kind], **step}
time.sleep(step.get("sleep", 0))
for rel, content in step.get("write", {}).items():
    path = pathlib.Path(rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
text = step.get("text", "ok")
if text == "APPROVE":
    text = approve()
text = text.replace("{review_id}", review_id).replace("{scope}", scope)
sys.stdout.write(text.replace("{result}", result))
log("end")
sys.exit(step.get("exit", 0))
