"""A scripted agent for end-to-end tests of `mergegate review` (run by the `command` backend).

Usage: scripted_agent.py SCRIPT.json STATE_DIR
SCRIPT is a JSON list; each call answers with the next item:
  {"text": "...", "write": {"path": "content"}, "shell": "sh -c script", "exit": 0}
`{review_id}` in the text is replaced by $MERGEGATE_REVIEW_ID (the nonce mergegate asked for),
`{scope}` by $MERGEGATE_REVIEW_SCOPE (the scope a verdict object must name).
`shell` runs with `/bin/sh -c` after the writes, with this agent's stdout (so a background
process it starts holds the supervisor's pipe, as a real agent's would).
Every prompt received is saved as STATE_DIR/prompt-N.txt, the working directory of each
call as STATE_DIR/cwd-N.txt, and its MERGEGATE_* variables as STATE_DIR/env-N.json.
"""

import json
import os
import pathlib
import subprocess
import sys

script = json.loads(pathlib.Path(sys.argv[1]).read_text())
state = pathlib.Path(sys.argv[2])
state.mkdir(parents=True, exist_ok=True)
n = len(list(state.glob("prompt-*.txt")))
prompt = pathlib.Path(os.environ["MERGEGATE_PROMPT_FILE"]).read_text()
(state / f"prompt-{n + 1}.txt").write_text(prompt)
(state / f"cwd-{n + 1}.txt").write_text(os.getcwd())
mergegate_env = {k: v for k, v in os.environ.items() if k.startswith("MERGEGATE_")}
(state / f"env-{n + 1}.json").write_text(json.dumps(mergegate_env))
step = script[min(n, len(script) - 1)]
for rel, content in step.get("write", {}).items():
    pathlib.Path(rel).write_text(content)
if "shell" in step:
    sys.stdout.flush()
    subprocess.run(["/bin/sh", "-c", step["shell"]], check=False)
text = step.get("text", "").replace("{review_id}", os.environ.get("MERGEGATE_REVIEW_ID", ""))
text = text.replace("{scope}", os.environ.get("MERGEGATE_REVIEW_SCOPE", ""))
sys.stdout.write(text)
sys.exit(step.get("exit", 0))
