"""The scripted sloppy implementer: a `command` agent that answers from a file the bench wrote.

Usage: sloppy_implementer.py ANSWERS.json

ANSWERS.json (outside the repository, written by the bench for one problem and one arm):
{"task_id": "HumanEval/7", "first": <module text>, "right": <module text>,
 "repairs": [true, false, ...]}. The first call writes `first` to solution.py. A later call
is a fix round (mergegate's fix prompt, after failing checks or a review asking for changes):
fix round k writes `right` when `repairs[k-1]` is true (the bench drew it from the seed), and
otherwise leaves the file as it is — a sloppy agent that does not always manage to fix what it
is told about. A right answer is never made wrong again. Every call ends with a successful
`agent-result` object for MERGEGATE_TASK_ID (an agent that always says it is done) and appends
a line to ANSWERS.log.jsonl (the call, and whether the file now holds the right answer).
"""

import json
import os
import pathlib
import sys

answers_path = pathlib.Path(sys.argv[1])
answers = json.loads(answers_path.read_text(encoding="utf-8"))
log_path = answers_path.with_suffix(".log.jsonl")
calls = len(log_path.read_text(encoding="utf-8").splitlines()) if log_path.exists() else 0
prompt = pathlib.Path(os.environ["MERGEGATE_PROMPT_FILE"]).read_text(encoding="utf-8")
solution = pathlib.Path("solution.py")
current = solution.read_text(encoding="utf-8") if solution.exists() else ""

if calls == 0:
    text, what = answers["first"], "first answer"
elif current == answers["right"]:
    text, what = current, "kept the right answer"
else:
    repairs = answers["repairs"]
    repaired = repairs[min(calls, len(repairs)) - 1]
    text, what = (answers["right"], "repaired") if repaired else (current, "not repaired")
solution.write_text(text, encoding="utf-8")

entry = {"call": calls + 1, "what": what, "right": text == answers["right"], "head": prompt[:80]}
with log_path.open("a", encoding="utf-8") as log:
    log.write(json.dumps(entry) + "\n")
result = {
    "task_id": os.environ.get("MERGEGATE_TASK_ID", "1"),
    "success": True,
    "completed_normally": True,
    "notes": f"{what}: implemented the function in solution.py",
    "files_changed": ["solution.py"],
}
# the agent-result alone: the `command` backend's final message must be exactly one object
sys.stdout.write(json.dumps(result) + "\n")
