"""`get_backend`: an `api_key_env` option names the variable holding the key."""

from __future__ import annotations

import pytest

from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.openai import OpenAIBackend
from mergegate.agents.registry import get_backend
from mergegate.errors import UsageError


def test_api_key_env_reads_the_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MG_TEST_REVIEW_KEY", "sk-from-env")
    claude = get_backend("claude", base_url="http://127.0.0.1:1", api_key_env="MG_TEST_REVIEW_KEY")
    assert isinstance(claude, ClaudeBackend)
    assert claude.api_key == "sk-from-env"
    openai = get_backend(
        "openai", base_url="http://127.0.0.1:1/v1", model="m", api_key_env="MG_TEST_REVIEW_KEY"
    )
    assert isinstance(openai, OpenAIBackend)
    assert openai.api_key == "sk-from-env"


def test_an_unset_variable_is_a_usage_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MG_TEST_REVIEW_KEY", raising=False)
    with pytest.raises(UsageError, match=r"MG_TEST_REVIEW_KEY.*not set") as info:
        get_backend("claude", api_key_env="MG_TEST_REVIEW_KEY")
    assert info.value.exit_code == 2


def test_a_key_and_a_key_variable_together_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MG_TEST_REVIEW_KEY", "x")
    with pytest.raises(UsageError, match="not both"):
        get_backend("claude", api_key="y", api_key_env="MG_TEST_REVIEW_KEY")


def test_backend_from_config_uses_the_table_and_flags_win() -> None:
    from mergegate.agents.command import CommandBackend
    from mergegate.agents.registry import backend_from_config
    from mergegate.config import AgentsConfig

    agents = AgentsConfig(
        backends={"claude": {"model": "from-table", "kill_grace_s": 3.0}, "command": {"env": []}}
    )
    claude = backend_from_config(agents, "claude", model="from-flag")
    assert isinstance(claude, ClaudeBackend)
    assert (claude.model, claude.kill_grace_s) == ("from-flag", 3.0)
    command = backend_from_config(AgentsConfig(), "ignored", cmd="agent --flag")
    assert isinstance(command, CommandBackend)
    assert command.argv == ["agent", "--flag"]
    with pytest.raises(UsageError, match="no backend"):
        backend_from_config(AgentsConfig())
