"""Helpers of the composite GitHub Action (action.yml): standard library only, no mergegate.

    review_io.py split ARGS            ARGS split like a POSIX shell would, NUL-separated on
                                       stdout (no expansion, no command substitution)
    review_io.py spec EVENT_JSON OUT   write the pull request's title and body to OUT as the
                                       spec; exit 3 when the event is not a pull request
    review_io.py decision RESULT_JSON  print the decision of `mergegate review --format json`
                                       ("error" when the file holds no result)
    review_io.py summary RESULT_JSON EXIT_CODE
                                       print the job summary (markdown) on stdout

Reviewer text (the message, finding titles, files) is untrusted: in the summary it is cut to
length, put on one line, stripped of control and bidi characters, HTML-escaped and
markdown-escaped, so it can neither break the table nor pass for mergegate's own words.
"""

from __future__ import annotations

import html
import json
import re
import shlex
import sys
import unicodedata
from pathlib import Path
from typing import Any

MEANING = {
    0: "approved",
    1: "changes requested or rejected (a real verdict that says no)",
    2: "usage error: bad arguments, unknown base ref or bad configuration",
    3: "undecidable: the review was malformed or empty even after the retry",
    4: "the reviewer agent failed (timeout, crash or CLI missing)",
    5: "escalated: a person must review (revision cap or stall)",
}
DECISIONS = ("approve", "fixes", "reject", "malformed", "empty")
MAX_FINDINGS = 50
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def clean(value: object, limit: int) -> str:
    """Untrusted text as one escaped markdown line of at most `limit` characters."""
    text = str(value)[: limit * 4]
    kept = []
    for char in text:
        if char.isspace():
            kept.append(" ")
        elif unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Co", "Cn"):
            kept.append(char)
    line = " ".join("".join(kept).split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return _MARKDOWN.sub(r"\\\1", html.escape(line, quote=True))


def load_result(path: str) -> dict[str, Any] | None:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def decision_of(result: dict[str, Any] | None) -> str:
    value = result.get("decision") if result else None
    return value if value in DECISIONS else "error"


def summary(result: dict[str, Any] | None, exit_code: int) -> str:
    decision = decision_of(result)
    mark = "✅" if decision == "approve" and exit_code == 0 else "❌"
    meaning = MEANING.get(exit_code, f"mergegate did not run or exited {exit_code}")
    lines = [f"## {mark} mergegate review: {decision}", "", f"Exit code {exit_code}: {meaning}."]
    if result is None:
        lines += ["", "No review result was produced; the step log has mergegate's error."]
        return "\n".join(lines) + "\n"
    lines += ["", f"> {clean(result.get('message', ''), 1000)}"]
    findings = [f for f in result.get("findings") or [] if isinstance(f, dict)]
    if findings:
        lines += ["", "| severity | id | status | finding | where |", "|---|---|---|---|---|"]
        for finding in findings[:MAX_FINDINGS]:
            where = finding.get("file") or ""
            if where and finding.get("line"):
                where = f"{where}:{finding['line']}"
            cells = [
                clean(finding.get("severity", ""), 20),
                clean(finding.get("id", ""), 20),
                clean(finding.get("status", ""), 20),
                clean(finding.get("title", ""), 200),
                clean(where, 120),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        if len(findings) > MAX_FINDINGS:
            lines.append(f"\n… and {len(findings) - MAX_FINDINGS} more in the reports.")
    rounds = result.get("rounds") or []
    reviewer = (result.get("usage") or {}).get("reviewer") or {}
    lines += [
        "",
        f"Rounds: {len(rounds)}; reviewer runs: {clean(reviewer.get('runs', 0), 12)}; "
        f"reviewer tokens: {clean(reviewer.get('total_tokens', 0), 20)}.",
        f"Reports: {clean(result.get('report_dir', ''), 300)}",
    ]
    return "\n".join(lines) + "\n"


def spec_from_event(event_path: str, out: str) -> int:
    try:
        event = json.loads(Path(event_path).read_text("utf-8"))
    except (OSError, ValueError):
        return 3
    pull = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pull, dict):
        return 3
    title = pull.get("title") or ""
    body = pull.get("body") or ""
    Path(out).write_text(f"# {title}\n\n{body}\n", "utf-8")
    return 0


def main(argv: list[str]) -> int:
    command, *rest = argv
    if command == "split":
        sys.stdout.write("\0".join(shlex.split(rest[0])))
        return 0
    if command == "spec":
        return spec_from_event(rest[0], rest[1])
    if command == "decision":
        print(decision_of(load_result(rest[0])))
        return 0
    if command == "summary":
        sys.stdout.write(summary(load_result(rest[0]), int(rest[1])))
        return 0
    print(f"review_io.py: unknown command {command!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
