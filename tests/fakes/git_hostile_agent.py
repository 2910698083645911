"""A hostile implementer for `mergegate run` tests: it does what its script says to its
workspace's git (shell commands), and otherwise behaves like the scripted agent.

Usage: hostile_agent.py ACTS.json STATE_DIR AGENT_ARGV...

ACTS maps a unit name (the workspace folder's name, the agent's working directory) to
`{"before": [sh, ...], "after": [sh, ...]}`. On the unit's first implementer call (not a
review, not a fix), `before` runs before AGENT_ARGV (the scripted agent, `run_agent.py`) does
its own work, and `after` once it is done; each line is run by `/bin/sh -c` in the workspace,
with the scripted agent's environment (`MERGEGATE_RUN_ID`, `MERGEGATE_TASK_ID`, ...). Every
other call is the scripted agent's alone. The exit code is the scripted agent's.

Each line run is logged to STATE_DIR/acts.jsonl (unit, phase, command, exit code), so a test
can tell the attack was really made.
"""

import json
import os
import pathlib
import subprocess
import sys

acts = json.loads(pathlib.Path(sys.argv[1]).read_text())
state = pathlib.Path(sys.argv[2])
argv = sys.argv[3:]
state.mkdir(parents=True, exist_ok=True)
unit = pathlib.Path.cwd().name
prompt = pathlib.Path(os.environ["MERGEGATE_PROMPT_FILE"]).read_text()
implementing = not os.environ.get("MERGEGATE_REVIEW_ID") and prompt.startswith(
    "You are the implementer"
)
marker = state / f"{unit}.acted"
mine = acts.get(unit) if implementing and not marker.exists() else None


def act(phase: str) -> None:
    for command in (mine or {}).get(phase, []):
        done = subprocess.run(["/bin/sh", "-c", command], check=False)
        line = {"unit": unit, "phase": phase, "command": command, "exit": done.returncode}
        with (state / "acts.jsonl").open("a") as handle:
            handle.write(json.dumps(line) + "\n")


if mine is not None:
    marker.touch()
act("before")
code = subprocess.run(argv, check=False).returncode
act("after")
sys.exit(code)
