"""The scripted reviewer of the gate-value bench: a `command` agent that may not cheat.

Usage: examples_reviewer.py

It sees what any reviewer sees — its prompt (the task block, with the checks the plan lists)
and the checkout of the change in its working directory — and nothing of the hidden tests or
the canonical solution. It judges by two things only:

1. it runs the task's visible checks itself (the `python3 -B -c` commands listed under
   "Checks mergegate runs" in its prompt), in the checkout, with bytecode writing off so the
   read-only check of the checkout holds;
2. it reads the change: solution.py must exist and no longer raise NotImplementedError.

It approves when both hold, and asks for changes otherwise, one important finding per failed
example. It is deliberately no smarter than the visible check: with it, the `mergegate` arm
measures the gate's mechanics (merge only on an approval, fix rounds, escalation), not a
reviewer's insight — that is what the real-model reviewers are measured for.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

prompt = pathlib.Path(os.environ["MERGEGATE_PROMPT_FILE"]).read_text(encoding="utf-8")
review_id = os.environ.get("MERGEGATE_REVIEW_ID", "")
section = prompt.split("## Checks mergegate runs", 1)
commands = re.findall(r"^- `(python3 -B -c .+)`$", section[1], re.M) if len(section) == 2 else []

findings = []
solution = pathlib.Path("solution.py")
if not solution.exists():
    findings.append({"title": "solution.py is missing", "file": "solution.py", "line": None})
elif "NotImplementedError" in solution.read_text(encoding="utf-8"):
    findings.append({"title": "the stub still raises NotImplementedError", "file": "solution.py"})
env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
for number, command in enumerate(commands, start=1):
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
        )
        failed, output = done.returncode != 0, (done.stderr or done.stdout)[-300:]
    except subprocess.TimeoutExpired:
        failed, output = True, "timed out"
    if failed:
        findings.append(
            {
                "title": f"example {number} of the docstring fails",
                "file": "solution.py",
                "detail": f"{command}\n{output}",
            }
        )

for number, finding in enumerate(findings, start=1):
    finding.update({"id": f"F-{number}", "severity": "important"})
    finding.setdefault("line", None)
    finding.setdefault("detail", finding["title"])
    finding.update({"suggestion": None, "requirement": None})
# The answer is the verdict object alone (the `command` backend has no structured-output
# mechanism, so its final message must be exactly one object), naming the review id and the
# scope mergegate issued.
verdict = {
    "review_id": review_id,
    "scope": os.environ.get("MERGEGATE_REVIEW_SCOPE", ""),
    "verdict": "request_changes" if findings else "approve",
    "conditions": [],
    "findings": findings,
    "summary": f"{len(commands)} visible example(s) run; {len(findings)} finding(s)",
    "confidence": 1.0,
}
sys.stdout.write(json.dumps(verdict) + "\n")
