"""The `aider` backend: `aider --message-file` (plain text; aider has no JSON mode).

aider exits 0 even on fatal API errors, so the terminal event is the `Tokens: … sent, …
received.` line it prints after a reply; no such line means the run failed, and a
`litellm.…Error` line after the last reply is an error. The text is what lies between the
start-up banner and the last `Tokens:` line. `Cost: $X message, $Y session.` (priced models
only) gives the cost of this message.

aider has no session ids: a resume re-runs with `--restore-chat-history` in the same work tree.
Reviewers run with `--dry-run` (no file is modified). Always: `--yes-always`,
`--no-auto-commits`, `--no-gitignore` (aider would append `.aider*` to `.gitignore`), no
update checks, no analytics.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from mergegate.agents._cli import CliBackend, ParsedRun, RunContext
from mergegate.agents.base import AgentRequest, BackendCapabilities, Usage
from mergegate.agents.signals import scan_text
from mergegate.processes import ProcessOutcome, Stream

__all__ = ["AiderBackend", "AiderParser", "parse_token_count"]

_BANNER = (
    "Aider v",
    "Model:",
    "Main model:",
    "Weak model:",
    "Editor model:",
    "Git repo:",
    "Repo-map:",
    "Added ",
    "Use /help",
    "Warning:",
    "HTTPSConnectionPool",
    "Note:",
    "Cur working dir:",
    "Restored previous conversation history",
    "Newer aider version",
    "Can't initialize prompt toolkit",
    "Detected dumb terminal",
    "https://aider.chat",
)
_MAX_LINES = 20_000
_SUFFIX = {"k": 1_000, "m": 1_000_000}


def parse_token_count(text: str) -> int:
    """`1.8k` → 1800, `14` → 14, `2.1M` → 2100000; 0 for anything else."""
    text = text.strip().lower()
    scale = _SUFFIX.get(text[-1:], 1)
    number = text[:-1] if scale != 1 else text
    try:
        return max(0, round(float(number) * scale))
    except ValueError:
        return 0


def _tokens_line(line: str) -> Usage:
    """Usage from `Tokens: 1.8k sent, 1.2k cache write, 3.4k cache hit, 14 received.`"""
    fields = {"sent": 0, "received": 0, "cache write": 0, "cache hit": 0}
    for part in line.removeprefix("Tokens:").strip().rstrip(".").split(","):
        count, _, label = part.strip().partition(" ")
        if label in fields:
            fields[label] += parse_token_count(count)
    return Usage(
        input_tokens=fields["sent"],
        output_tokens=fields["received"],
        cache_read_tokens=fields["cache hit"],
        cache_write_tokens=fields["cache write"],
    )


def _cost_line(line: str) -> float | None:
    """The message cost from `Cost: $0.0097 message, $0.03 session.`"""
    first = line.removeprefix("Cost:").strip().split(",")[0].strip()
    if not first.startswith("$") or not first.endswith(" message"):
        return None
    try:
        return float(first[1:].removesuffix(" message"))
    except ValueError:
        return None


class AiderParser:
    """Reads aider's plain-text stdout."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.lines: deque[str] = deque(maxlen=_MAX_LINES)
        self.usage = Usage()
        self.cost: float | None = None
        self.replies = 0
        self.reply_end: int | None = None
        """Index (in `lines`) of the last `Tokens:` line."""
        self.error_after_reply: str | None = None

    def feed(self, stream: Stream, line: str) -> bool:
        if stream != "stdout":
            return False
        if len(self.lines) == self.lines.maxlen and self.reply_end is not None:
            self.reply_end -= 1
        self.lines.append(line)
        if line.startswith("Tokens:"):
            self.replies += 1
            self.usage = _add(self.usage, _tokens_line(line))
            self.reply_end = len(self.lines) - 1
            self.error_after_reply = None
        elif line.startswith("Cost:"):
            cost = _cost_line(line)
            if cost is not None:
                self.cost = (self.cost or 0.0) + cost
        elif line.startswith("litellm.") and "Error" in line:
            self.error_after_reply = line[:500]
        return False  # aider exits by itself; the last Tokens line is only known at exit

    def _reply(self) -> str:
        lines = list(self.lines)[: self.reply_end]
        start = 0
        for i, line in enumerate(lines):
            if line.startswith(_BANNER):
                start = i + 1
        body = [ln for ln in lines[start:] if not ln.startswith(("Tokens:", "Cost:"))]
        return "\n".join(body).strip("\n")

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        del outcome
        parsed = ParsedRun(session_id=None, usage=self.usage, cost_usd=self.cost)
        if self.reply_end is None:
            parsed.error = self.error_after_reply or "aider printed no Tokens line (no reply)"
            return parsed
        parsed.terminal = True
        parsed.text = self._reply()
        parsed.turns = self.replies
        parsed.ok = self.error_after_reply is None
        parsed.error = self.error_after_reply
        parsed.signals = scan_text(parsed.text)
        return parsed


def _add(a: Usage, b: Usage) -> Usage:
    return Usage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cache_read_tokens=a.cache_read_tokens + b.cache_read_tokens,
        cache_write_tokens=a.cache_write_tokens + b.cache_write_tokens,
    )


class AiderBackend(CliBackend):
    """aider (`aider --message-file`)."""

    name = "aider"
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=True, sessions=False
    )
    default_executable = "aider"

    def __init__(self, *, files: Sequence[str] = (), **options: Any) -> None:
        """`files` are added to the chat (aider edits only files in the chat)."""
        super().__init__(**options)
        self.files = tuple(files)

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        args = [
            "--message-file",
            str(ctx.prompt_file),
            "--yes-always",
            "--no-auto-commits",
            "--no-dirty-commits",
            "--no-stream",
            "--no-pretty",
            "--no-check-update",
            "--no-show-release-notes",
            "--analytics-disable",
            "--no-show-model-warnings",
            "--no-gitignore",
            "--no-suggest-shell-commands",
        ]
        model = self.model_for(request)
        if model:
            args += ["--model", model]
        if request.read_only:
            args.append("--dry-run")
        if request.resume_session_id:
            args.append("--restore-chat-history")
        return [*args, *self.files]

    def initial_session(self, request: AgentRequest) -> str | None:
        del request
        return None  # aider has no session ids

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> AiderParser:
        del request
        return AiderParser(ctx)
