"""The argv each CLI backend builds: read-only flags, resume placement, no shell."""

from __future__ import annotations

from pathlib import Path

import pytest

from mergegate.agents import AgentRequest
from mergegate.agents._cli import RunContext
from mergegate.agents.aider import AiderBackend
from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.codex import API_KEY_ENV, CodexBackend, config_overrides
from mergegate.agents.gemini import GeminiBackend
from mergegate.agents.opencode import OpenCodeBackend
from mergegate.agents.signals import HelpDetector
from mergegate.errors import UsageError


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


def test_claude_endpoint_options_become_its_environment(tmp_path: Path) -> None:
    be = ClaudeBackend(
        base_url="http://127.0.0.1:8080", api_key="k", config_home=tmp_path / "c", model="m1"
    )
    env = be.run_env(req(tmp_path), ctx(tmp_path))
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:8080"
    assert env["ANTHROPIC_API_KEY"] == "k"
    assert env["CLAUDE_CONFIG_DIR"] == str(tmp_path / "c")
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    args = be.build_args(req(tmp_path), ctx(tmp_path, "s"))
    assert args[args.index("--model") + 1] == "m1"  # the backend's default model ...
    args = be.build_args(req(tmp_path, model="m2"), ctx(tmp_path, "s"))
    assert args[args.index("--model") + 1] == "m2"  # ... unless the request names one
    assert ClaudeBackend().run_env(req(tmp_path), ctx(tmp_path)) == {}


def test_codex_endpoint_is_a_provider_defined_by_overrides(tmp_path: Path) -> None:
    be = CodexBackend(
        base_url="http://127.0.0.1:8080/v1",
        api_key="k",
        config_home=tmp_path / "codex-home",
        provider_options={"request_max_retries": 0},
        config={"model_reasoning_effort": "low"},
    )
    args = be.build_args(req(tmp_path, resume_session_id="t1"), ctx(tmp_path))
    overrides = [args[i + 1] for i, arg in enumerate(args) if arg == "-c"]
    assert overrides == [
        'model_provider="mergegate"',
        'model_providers.mergegate.name="mergegate"',
        'model_providers.mergegate.base_url="http://127.0.0.1:8080/v1"',
        'model_providers.mergegate.wire_api="responses"',
        f'model_providers.mergegate.env_key="{API_KEY_ENV}"',
        "model_providers.mergegate.request_max_retries=0",
        'model_reasoning_effort="low"',
    ]
    assert max(i for i, arg in enumerate(args) if arg == "-c") < args.index("resume")
    env = be.run_env(req(tmp_path), ctx(tmp_path))
    assert env == {API_KEY_ENV: "k", "CODEX_HOME": str(tmp_path / "codex-home")}
    assert (tmp_path / "codex-home").is_dir()  # Codex refuses a CODEX_HOME that is missing
    assert "-c" not in CodexBackend().build_args(req(tmp_path), ctx(tmp_path))


@pytest.mark.parametrize(
    ("value", "toml"),
    [(True, "true"), (0, "0"), (1.5, "1.5"), ('a "quoted"\nline', '"a \\"quoted\\"\\nline"')],
)
def test_codex_config_values_are_toml_literals(value: object, toml: str) -> None:
    assert config_overrides({"k.x": value}) == ["-c", f"k.x={toml}"]  # type: ignore[dict-item]


@pytest.mark.parametrize("key", ["", "a b", "a=b", "a..b", "x.'y'"])
def test_codex_config_keys_must_be_dotted_names(key: str) -> None:
    with pytest.raises(UsageError):
        config_overrides({key: 1})


def test_codex_rejects_what_toml_cannot_say(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        config_overrides({"k": float("nan")})
    with pytest.raises(UsageError):
        CodexBackend(provider_options={"request_max_retries": 0})  # without a base_url
