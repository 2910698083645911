"""Configuration: defaults < file < environment < flags; invalid config names key and file."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from mergegate.config import (
    MAX_ATTEMPTS_CEILING,
    Config,
    find_config_file,
    load_config,
    state_dir,
)
from mergegate.errors import ConfigError


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from an empty directory so the checkout's own config files never leak in."""
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults() -> None:
    config = Config()
    assert config.retry.max_json_retries == 5
    assert config.retry.json_retry_delay == 1.0
    assert config.retry.use_exponential_backoff is True
    assert config.retry.max_backoff_delay == 30.0
    assert config.retry.retry_prompt_reduction is True
    assert config.retry.attempts_for("review-verdict") == 2
    assert config.retry.attempts_for("agent-result") == 6
    assert config.handoff_validation.strict_schema_validation is True
    assert config.handoff_validation.failed_handoff_dir == "failed_handoffs"
    assert config.review.mode == "auto"
    assert config.review.reviewer is None  # no default reviewer (issue 24): choose one
    assert config.review.max_rounds == 3
    assert config.review.malformed_retries == 1
    assert config.review.policy.blocking_severities == ("critical", "important")
    assert config.review.policy.minor_blocks is False
    assert config.review.stages == ("spec", "quality")
    assert config.agents.default_timeout_s == 1800
    assert config.agents.default_stall_timeout_s == 300
    assert config.agents.kill_grace_s == 10
    assert config.agents.max_output_bytes == 50 * 1024 * 1024


def test_values_are_frozen() -> None:
    config = Config()
    with pytest.raises(ValueError, match="frozen"):
        config.review.max_rounds = 9  # type: ignore[misc]


def test_precedence_defaults_file_env_flags(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "[review]\nmax_rounds = 4\nreviewer = 'claude'\n")
    from_file = load_config(tmp_path, env={})
    assert from_file.review.max_rounds == 4
    assert from_file.review.reviewer == "claude"
    assert from_file.review.mode == "auto"  # default kept
    from_env = load_config(tmp_path, env={"MERGEGATE_REVIEW__MAX_ROUNDS": "5"})
    assert from_env.review.max_rounds == 5
    assert from_env.review.reviewer == "claude"
    from_flag = load_config(
        tmp_path,
        env={"MERGEGATE_REVIEW__MAX_ROUNDS": "5"},
        overrides={"review.max_rounds": 2, "review.reviewer": None},
    )
    assert from_flag.review.max_rounds == 2
    assert from_flag.review.reviewer == "claude"  # None means "flag not given"


def test_pyproject_table(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        "[project]\nname='x'\n[tool.mergegate.retry]\nmax_json_retries = 2\n",
    )
    config = load_config(tmp_path, env={})
    assert config.retry.max_json_retries == 2
    assert config.source == tmp_path / "pyproject.toml"


def test_mergegate_toml_wins_over_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.mergegate.retry]\nmax_json_retries = 2\n")
    write(tmp_path / "mergegate.toml", "[retry]\nmax_json_retries = 3\n")
    assert load_config(tmp_path, env={}).retry.max_json_retries == 3


def test_nearest_ancestor_file_is_used(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "[review]\nmax_rounds = 7\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    config = load_config(deep, env={})
    assert config.review.max_rounds == 7
    assert config.root == tmp_path


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "[review]\nmax_rounds = 7\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert find_config_file(repo) == (repo, None)
    assert load_config(repo, env={}).review.max_rounds == 3


def test_tables_merge_across_layers(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "[retry.max_attempts]\nagent-result = 3\n")
    config = load_config(
        tmp_path, env={"MERGEGATE_RETRY__MAX_ATTEMPTS": "{supervisor-decision = 4}"}
    )
    assert config.retry.max_attempts == {
        "review-verdict": 2,
        "agent-result": 3,
        "supervisor-decision": 4,
    }


def test_env_values_parse_as_toml_or_stay_strings() -> None:
    config = load_config(
        env={
            "MERGEGATE_REVIEW__POLICY__MINOR_BLOCKS": "true",
            "MERGEGATE_REVIEW__STAGES": '["quality"]',
            "MERGEGATE_REVIEW__REVIEWER_CMD": "my-reviewer --strict {prompt_file}",
            "mergegate_review__implementer": "codex",
            "MERGEGATE_AGENTS__BACKENDS__CLAUDE__MODEL": "sonnet",
            "MERGEGATE_STATE_DIR": "/tmp/ignored-here",
            "UNRELATED": "1",
        }
    )
    assert config.review.policy.minor_blocks is True
    assert config.review.stages == ("quality",)
    assert config.review.reviewer_cmd == "my-reviewer --strict {prompt_file}"
    assert config.review.implementer == "codex"
    assert config.agents.backends == {"claude": {"model": "sonnet"}}


@pytest.mark.parametrize(
    ("toml", "key", "fragment"),
    [
        ("[review]\nmax_rounds = '3'\n", "review.max_rounds", "valid integer"),
        ("[review]\nmax_ronds = 3\n", "review.max_ronds", "did you mean 'max_rounds'"),
        ("[reveiw]\nmax_rounds = 3\n", "reveiw", "did you mean 'review'"),
        ("[retry]\nmax_json_retries = 6\n", "retry.max_json_retries", "less than or equal to 5"),
        ("[retry]\nmax_attempts = {agent-result = 7}\n", "retry.max_attempts", "between 1 and 6"),
        ("[retry]\nenable_partial_recovery = true\n", "retry.enable_partial_recovery", "False"),
        ("[review]\nmode = 'sometimes'\n", "review.mode", "'auto', 'manual' or 'off'"),
        ("[review]\nstages = ['spec', 'spec']\n", "review.stages", "must not repeat"),
        ("[review.policy]\nblocking_severities = ['major']\n", "review.policy", "critical"),
        ("[handoff_validation]\nstrict_schema_validation = 'yes'\n", "strict_schema", "boolean"),
        ("[agents]\ndefault_timeout_s = -1\n", "agents.default_timeout_s", "greater than 0"),
    ],
)
def test_invalid_file_names_key_and_file(
    tmp_path: Path, toml: str, key: str, fragment: str
) -> None:
    path = write(tmp_path / "mergegate.toml", toml)
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env={})
    message = str(raised.value)
    assert key in message
    assert str(path) in message
    assert fragment in message
    assert int(raised.value.exit_code) == 2


def test_invalid_env_names_the_variable() -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(env={"MERGEGATE_REVIEW__MAX_ROUNDS": "lots"})
    assert "review.max_rounds" in str(raised.value)
    assert "MERGEGATE_REVIEW__MAX_ROUNDS" in str(raised.value)


def test_invalid_override_names_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"override review\.max_rounds"):
        load_config(env={}, overrides={"review.max_rounds": 0})


def test_invalid_toml_is_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path / "mergegate.toml", "[review\nmax_rounds = 3\n")
    with pytest.raises(ConfigError, match="invalid TOML") as raised:
        load_config(tmp_path, env={})
    assert str(path) in str(raised.value)


def test_metadata_keys_are_not_settable(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "root = '/etc'\n")
    with pytest.raises(ConfigError, match="unknown section"):
        load_config(tmp_path, env={})


def test_float_keys_accept_integers(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "[retry]\njson_retry_delay = 2\n")
    assert load_config(tmp_path, env={}).retry.json_retry_delay == 2.0


def test_attempts_for_is_capped() -> None:
    config = load_config(env={"MERGEGATE_RETRY__MAX_JSON_RETRIES": "0"})
    assert config.retry.attempts_for("agent-result") == 1
    assert Config().retry.attempts_for("anything") == MAX_ATTEMPTS_CEILING


def test_state_dir_env_wins(tmp_path: Path) -> None:
    assert state_dir(tmp_path, env={"MERGEGATE_STATE_DIR": str(tmp_path / "s")}) == tmp_path / "s"


def test_state_dir_is_under_the_project_root(tmp_path: Path) -> None:
    write(tmp_path / "mergegate.toml", "")
    deep = tmp_path / "x" / "y"
    deep.mkdir(parents=True)
    assert state_dir(deep, env={}) == tmp_path / ".mergegate"
    assert state_dir(load_config(deep, env={}), env={}) == tmp_path / ".mergegate"


def test_autouse_fixture_isolates_state(tmp_path: Path) -> None:
    assert state_dir() == tmp_path / ".mergegate-state"


def _dotted_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        if name in ("root", "source"):
            continue
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.extend(_dotted_keys(annotation, f"{prefix}{name}."))
        else:
            keys.append(f"{prefix}{name}")
    return keys


def test_every_key_is_documented() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text()
    missing = []
    for dotted in _dotted_keys(Config):
        section, _, key = dotted.rpartition(".")
        if f"### `[{section}]`" not in docs or f"| `{key}` |" not in docs:
            missing.append(dotted)
    assert missing == []
