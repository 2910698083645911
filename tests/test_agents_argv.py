"""The argv each CLI backend builds: read-only flags, resume placement, no shell."""

from __future__ import annotations

from pathlib import Path

from mergegate.agents import AgentRequest
from mergegate.agents._cli import RunContext
from mergegate.agents.aider import AiderBackend
from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.codex import CodexBackend
from mergegate.agents.gemini import GeminiBackend
from mergegate.agents.opencode import OpenCodeBackend
from mergegate.agents.signals import HelpDetector


def ctx(tmp_path: Path, session: str | None = None) -> RunContext:
    return RunContext(tmp_path, tmp_path / "prompt.txt", session, lambda s: None, HelpDetector())


def req(tmp_path: Path, **kw: object) -> AgentRequest:
    return AgentRequest.model_validate({"prompt": "-do it", "cwd": tmp_path, **kw})


def test_claude(tmp_path: Path) -> None:
    be = ClaudeBackend(allowed_tools=["Read", "Edit"])
    new = req(tmp_path, model="sonnet")
    session = be.initial_session(new)
    assert session
    args = be.build_args(new, ctx(tmp_path, session))
    assert args[:2] == ["-p", " -do it"]  # right after -p, and never read as an option
    assert args[args.index("--session-id") + 1] == session
    assert "--verbose" in args
    assert args[args.index("--allowedTools") + 1] == "Read,Edit"
    ro = req(tmp_path, read_only=True, resume_session_id="abc")
    args = be.build_args(ro, ctx(tmp_path, "abc"))
    assert args[args.index("--tools") + 1] == "Read,Grep,Glob"
    assert args[args.index("--permission-mode") + 1] == "dontAsk"
    assert args[args.index("--resume") + 1] == "abc"
    assert "--session-id" not in args
    assert "--allowedTools" not in args


def test_codex_options_before_resume(tmp_path: Path) -> None:
    be = CodexBackend()
    args = be.build_args(req(tmp_path, read_only=True, resume_session_id="t1"), ctx(tmp_path))
    assert args[:2] == ["exec", "--json"]
    assert args[args.index("--sandbox") + 1] == "read-only"
    assert args.index("--sandbox") < args.index("resume")
    assert args[-3:] == ["resume", "t1", " -do it"]
    args = be.build_args(req(tmp_path), ctx(tmp_path))
    assert args[args.index("--sandbox") + 1] == "workspace-write"
    assert "resume" not in args


def test_gemini(tmp_path: Path) -> None:
    be = GeminiBackend()
    args = be.build_args(req(tmp_path, read_only=True), ctx(tmp_path, "u1"))
    assert args[0] == "--prompt=-do it"
    assert args[args.index("--approval-mode") + 1] == "plan"
    assert "--session-id=u1" in args
    args = be.build_args(req(tmp_path, resume_session_id="u1"), ctx(tmp_path, "u1"))
    assert "--resume=u1" in args
    assert args[args.index("--approval-mode") + 1] == "auto_edit"
    assert be.run_env(req(tmp_path), ctx(tmp_path)) == {"GEMINI_CLI_TRUST_WORKSPACE": "true"}


def test_opencode(tmp_path: Path) -> None:
    be = OpenCodeBackend(auto=True)
    args = be.build_args(req(tmp_path, read_only=True, resume_session_id="ses_1"), ctx(tmp_path))
    assert args[:3] == ["run", "--format", "json"]
    assert args[args.index("--agent") + 1] == "plan"
    assert "--auto" not in args  # never auto-approve a reviewer
    assert args[args.index("--session") + 1] == "ses_1"
    assert "--auto" in be.build_args(req(tmp_path), ctx(tmp_path))


def test_aider(tmp_path: Path) -> None:
    be = AiderBackend(files=["a.py"])
    c = ctx(tmp_path)
    args = be.build_args(req(tmp_path, read_only=True, resume_session_id="x"), c)
    assert args[args.index("--message-file") + 1] == str(c.prompt_file)
    for flag in ("--dry-run", "--restore-chat-history", "--no-auto-commits", "--no-gitignore"):
        assert flag in args
    assert args[-1] == "a.py"
    assert "--dry-run" not in be.build_args(req(tmp_path), c)
