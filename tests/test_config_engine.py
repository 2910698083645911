"""`[engine]`: where durable state lives. Validated, precedence as everywhere, and a database
password never shown — in errors, reprs, JSON dumps or the CLI's one line on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from _gitrepo import change_repo
from mergegate.config import (
    DATABASE_URL_ENV,
    DEFAULT_ENGINE,
    Config,
    DatabaseUrl,
    EngineSettings,
    load_config,
    redact_url,
)
from mergegate.errors import ConfigError, ExitCode

SECRET = "hunter2-Zq9"
PG = f"postgresql://mg:{SECRET}@db.example:5432/mergegate"


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


def test_defaults_are_written_once() -> None:
    assert Config().engine == DEFAULT_ENGINE
    assert DEFAULT_ENGINE.database_url is None  # one SQLite file per run
    assert DEFAULT_ENGINE.executor_id == "local"
    assert DEFAULT_ENGINE.global_concurrency is None
    assert DEFAULT_ENGINE.worker_concurrency is None
    assert DEFAULT_ENGINE.polling_interval_s == 0.1


def test_file_then_env_then_flag(tmp_path: Path) -> None:
    (tmp_path / "mergegate.toml").write_text(
        '[engine]\ndatabase_url = "sqlite:////var/tmp/all-runs.sqlite"\n'
        'executor_id = "host-a"\nworker_concurrency = 3\nglobal_concurrency = 12\n'
    )
    from_file = load_config(tmp_path, env={})
    assert from_file.engine.database_url == DatabaseUrl("sqlite:////var/tmp/all-runs.sqlite")
    assert from_file.engine.database_url is not None
    assert from_file.engine.database_url.scheme == "sqlite"
    assert (from_file.engine.executor_id, from_file.engine.worker_concurrency) == ("host-a", 3)
    from_env = load_config(tmp_path, env={DATABASE_URL_ENV: PG})
    assert from_env.engine.database_url is not None
    assert from_env.engine.database_url.get_secret_value() == PG
    assert from_env.engine.database_url.is_postgres
    assert from_env.engine.global_concurrency == 12  # the rest of the file's table is kept
    from_flag = load_config(
        tmp_path,
        env={DATABASE_URL_ENV: PG, "MERGEGATE_ENGINE__EXECUTOR_ID": "host-b"},
        overrides={"engine.database_url": "postgresql://other/db", "engine.executor_id": None},
    )
    assert str(from_flag.engine.database_url) == "postgresql://other/db"
    assert from_flag.engine.executor_id == "host-b"


def test_the_long_and_short_variable_agree_or_fail() -> None:
    long_name = "MERGEGATE_ENGINE__DATABASE_URL"
    same = load_config(env={DATABASE_URL_ENV: PG, long_name: PG})
    assert same.engine.database_url == DatabaseUrl(PG)
    with pytest.raises(ConfigError) as caught:
        load_config(env={DATABASE_URL_ENV: PG, long_name: "postgresql://x/y"})
    assert DATABASE_URL_ENV in str(caught.value)
    assert long_name in str(caught.value)
    assert SECRET not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        (f"mysql://mg:{SECRET}@h/db", "got a 'mysql' URL"),
        (f"postgres://mg:{SECRET}@h/db", "got a 'postgres' URL"),
        (f"postgresql+psycopg2://mg:{SECRET}@h/db", "got a 'postgresql+psycopg2' URL"),
        (f"postgresql://mg:{SECRET}@h:99999/db", "port"),
        (f"postgresql://mg:{SECRET}/db", "port"),  # no `@`: the password reads as a port
        (f"postgresql://mg:{SECRET}@h/", "names no database"),
        (f"postgresql://mg:{SECRET}@h", "names no database"),
        (f"postgresql://mg:{SECRET}@h/db/extra", "names no database"),
        (f"postgresql://mg:{SECRET}@h/db#frag", "fragment"),
        (f"postgresql://mg:{SECRET} x@h/db", "whitespace"),
        ("sqlite:///relative.sqlite", "absolute file path"),
        ("sqlite:///:memory:", "absolute file path"),
        ("sqlite://", "got a 'sqlite' URL"),
        ("sqlite:////", "absolute file path"),
        ("sqlite:////tmp/x.sqlite?mode=ro", "absolute file path"),
        (SECRET, "not a URL"),
        ("", "not a URL"),
    ],
)
def test_an_unusable_url_is_exit_2_and_never_quoted(url: str, why: str, tmp_path: Path) -> None:
    for env, source in (
        ({DATABASE_URL_ENV: url}, DATABASE_URL_ENV),
        ({"MERGEGATE_ENGINE__DATABASE_URL": url}, "MERGEGATE_ENGINE__DATABASE_URL"),
    ):
        if not url and source == DATABASE_URL_ENV:
            continue  # an empty MERGEGATE_DATABASE_URL means "unset", like any empty variable
        with pytest.raises(ConfigError) as caught:
            load_config(env=env)
        message = str(caught.value)
        assert caught.value.exit_code == ExitCode.USAGE
        assert "database_url must be sqlite:////" in message
        assert why in message
        assert source in message
        assert SECRET not in message


def test_an_unusable_url_in_the_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "mergegate.toml").write_text(f'[engine]\ndatabase_url = "mysql://u:{SECRET}@h/d"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert str(tmp_path / "mergegate.toml") in str(caught.value)
    assert "engine.database_url" in str(caught.value)
    assert SECRET not in str(caught.value)


def test_a_url_that_is_not_a_string(tmp_path: Path) -> None:
    (tmp_path / "mergegate.toml").write_text("[engine]\ndatabase_url = 5432\n")
    with pytest.raises(ConfigError, match="got int, not a string"):
        load_config(tmp_path, env={})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("executor_id", '"-leading-dash"'),
        ("executor_id", '"has space"'),
        ("executor_id", '"' + "x" * 65 + '"'),
        ("executor_id", '"a/b"'),
        ("global_concurrency", "0"),
        ("worker_concurrency", "0"),
        ("worker_concurrency", "65"),
        ("worker_concurrency", '"2"'),
        ("polling_interval_s", "0.0"),
        ("polling_interval_s", "inf"),
        ("polling_interval_s", "11.0"),
    ],
)
def test_engine_limits_are_checked(tmp_path: Path, key: str, value: str) -> None:
    (tmp_path / "mergegate.toml").write_text(f"[engine]\n{key} = {value}\n")
    with pytest.raises(ConfigError, match=f"engine.{key}"):
        load_config(tmp_path, env={})


def test_an_unknown_engine_key_suggests_the_right_one(tmp_path: Path) -> None:
    (tmp_path / "mergegate.toml").write_text('[engine]\ndatabase_uri = "postgresql://h/d"\n')
    with pytest.raises(ConfigError, match="did you mean 'database_url'"):
        load_config(tmp_path, env={})


def test_every_rendering_of_the_config_is_redacted() -> None:
    config = load_config(env={DATABASE_URL_ENV: PG})
    url = config.engine.database_url
    assert url is not None
    for shown in (
        str(url),
        repr(url),
        f"{url}",
        repr(config),
        str(config.engine),
        config.model_dump_json(),
        EngineSettings.model_validate({"database_url": PG}).model_dump_json(),
    ):
        assert SECRET not in shown
        assert "postgresql://mg:***@db.example:5432/mergegate" in shown
    # Python-mode dumps keep the value (the loader merges them), still redacted when printed.
    dumped = config.model_dump()["engine"]["database_url"]
    assert dumped == url
    assert SECRET not in repr(dumped)


def test_a_pydantic_error_does_not_quote_the_url() -> None:
    for model, data in (
        (Config, {"engine": {"database_url": f"mysql://u:{SECRET}@h/d"}}),
        (EngineSettings, {"database_url": f"mysql://u:{SECRET}@h/d"}),
    ):
        with pytest.raises(ValidationError) as caught:
            model.model_validate(data)
        assert SECRET not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://u:pw@h/d", "postgresql://u:***@h/d"),
        ("postgresql://:pw@h/d", "postgresql://:***@h/d"),
        ("postgresql://u@h/d", "postgresql://u@h/d"),
        (
            "postgresql://h/d?sslmode=require&password=pw",
            "postgresql://h/d?sslmode=require&password=***",
        ),
        ("postgresql://h/d?password=pw&x=1", "postgresql://h/d?password=***&x=1"),
        ("postgresql://u:p@ss/w@rd@h:5/d", "postgresql://u:***@h:5/d"),
        ("postgresql://u:p%40ss@h/d", "postgresql://u:***@h/d"),
        (
            "failed: postgresql://a:one@h/d, then redis://b:two@r:6379 (retry)",
            "failed: postgresql://a:***@h/d, then redis://b:***@r:6379 (retry)",
        ),
        ("no url here: user:pw@host", "no url here: user:pw@host"),
    ],
)
def test_redact_url(text: str, shown: str) -> None:
    assert redact_url(text) == shown


def _parse_or_error(url: str) -> DatabaseUrl | str:
    try:
        return DatabaseUrl(url)
    except ValueError as exc:
        return str(exc)


_password = st.text(
    alphabet=st.characters(codec="ascii", exclude_characters="/@?#%:\x7f", min_codepoint=33),
    min_size=4,
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(password=_password, user=st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True))
def test_no_password_is_ever_shown(password: str, user: str) -> None:
    url = f"postgresql://{user}:{password}@db:5432/mg"
    parsed = _parse_or_error(url)
    if isinstance(parsed, str):  # e.g. `[` or `]` (IPv6 brackets): rejected, and not quoted
        assert "database_url must be" in parsed
        assert password not in parsed
        return
    assert parsed.get_secret_value() == url
    for shown in (str(parsed), repr(parsed), redact_url(f"error: {url}; retrying")):
        assert f":{password}@" not in shown
        assert ":***@" in shown
    settings_ = EngineSettings.model_validate({"database_url": url})
    assert f":{password}@" not in settings_.model_dump_json()


def test_the_cli_prints_one_redacted_line_and_exits_2(tmp_path: Path) -> None:
    repo = change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"})
    bad = f"postgresql://mg:{SECRET}@db.example:70000/mergegate"
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(tmp_path / "st"), DATABASE_URL_ENV: bad}
    agent = f"{sys.executable} -c print('unreachable')"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mergegate",
            "agent",
            "run",
            "--backend",
            "command",
            "--cmd",
            agent,
            "--prompt",
            "x",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mergegate: error: ")
    assert "engine.database_url" in lines[0]
    assert "port" in lines[0]
    assert DATABASE_URL_ENV in lines[0]
    assert SECRET not in proc.stderr + proc.stdout
    assert not (tmp_path / "st").exists()


def test_the_concurrency_default_is_spelled_once() -> None:
    """`[run]`, a run's options, a fleet worker and the durable engine start from one number."""
    from mergegate.config import DEFAULT_CONCURRENCY, RunConfig
    from mergegate.engine import RunOptions, WorkerOptions
    from mergegate.store import EngineConfig

    assert RunConfig().concurrency == DEFAULT_CONCURRENCY
    assert RunOptions().concurrency == DEFAULT_CONCURRENCY
    assert WorkerOptions("w", Path("/w")).concurrency == DEFAULT_CONCURRENCY
    assert EngineConfig(database_url="sqlite://").concurrency == DEFAULT_CONCURRENCY
