"""The hook's own reading of `[hooks]` (`load_hooks`, `check_hooks`: no pydantic) agrees with
the whole configuration's (`load_config`, `HooksConfig`) on every table and every environment:
the same tables accepted, the same values, the same errors. And the hook decides from `[hooks]`
alone: another section's mistake does not block it, a `[hooks]` mistake does."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from _hooks import recorded, run_hook
from mergegate.config import HooksConfig, HooksSection, check_hooks, load_config, load_hooks
from mergegate.errors import ConfigError

KEYS = ("subagent_types", "prompt_markers", "result_markers", "timeout_s", "fix_subagent_types")

# The values TOML (a file, or an environment variable read as TOML) can give.
scalars = st.one_of(
    st.text(max_size=8),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 300, 301, 300.0, 300.0000001, -0.0, 0.0, 1e-300, 5e-324]),
    st.booleans(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
string_lists = st.lists(st.text(max_size=12), max_size=4)
keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=12))
tables = st.dictionaries(keys, st.one_of(values, string_lists), max_size=6)


def _pydantic(table: dict[str, Any]) -> tuple[str, object]:
    try:
        config = HooksConfig.model_validate(table)
    except ValidationError as exc:
        return "refused", [
            (tuple(str(p) for p in e["loc"]), e["type"], e["msg"], e["input"])
            for e in exc.errors(include_url=False)
        ]
    return "accepted", tuple(getattr(config, key) for key in KEYS)


def _light(table: dict[str, Any]) -> tuple[str, object]:
    checked = check_hooks(table)
    if isinstance(checked, HooksSection):
        return "accepted", tuple(getattr(checked, key) for key in KEYS)
    return "refused", [(p.loc, p.kind, p.message, p.value) for p in checked]


def _same(left: object, right: object) -> bool:
    """Equal, with nan equal to itself (a refused nan is reported as the value given)."""
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(_same, left, right))
    return type(left) is type(right) and left == right


@settings(max_examples=600, deadline=None)
@given(tables)
def test_the_light_reader_and_the_model_agree_on_every_hooks_table(table: dict[str, Any]) -> None:
    assert _same(_light(table), _pydantic(table))


@pytest.mark.parametrize(
    "table",
    [
        {},
        {"timeout_s": 1},
        {"timeout_s": 300},
        {"timeout_s": 10**400},
        {"timeout_s": float("nan")},
        {"timeout_s": True},
        {"subagent_types": []},
        {"subagent_types": "*review*"},
        {"prompt_markers": ["a", 1, ["b"]]},
        {"zz": 1, "timeout_s": 0, "subagent_types": 5},
    ],
)
def test_the_readers_agree_on_the_edges(table: dict[str, Any]) -> None:
    assert _same(_light(table), _pydantic(table))


env_names = st.sampled_from(
    [
        *(f"MERGEGATE_HOOKS__{k.upper()}" for k in KEYS),
        "MERGEGATE_HOOKS__TIMEOUT",
        "mergegate_hooks__timeout_s",
        "MERGEGATE_HOOKS__TIMEOUT_S__X",
        "MERGEGATE_HOOKS__SUBAGENT_TYPES__A",
        "MERGEGATE_HOOKS____TIMEOUT_S",
    ]
)
env_values = st.one_of(
    st.sampled_from(
        ['["*r*"]', "[1]", "2", "2.5", "0", "301", "nan", "inf", "true", "x", '"x"', "[]", ""]
    ),
    st.text(max_size=10),
)


def _outcome(read: Any) -> tuple[str, object]:
    try:
        section = read()
    except ConfigError as exc:
        return "refused", (str(exc), exc.key, exc.path)
    return "accepted", tuple(getattr(section, key) for key in KEYS)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(env_names, env_values, max_size=3))
def test_the_environment_layer_gives_the_same_hooks_and_errors(env: dict[str, str]) -> None:
    def full() -> Any:
        return load_config(Path("/"), env=env, project_file=False).hooks

    assert _outcome(lambda: load_hooks(env)) == _outcome(full)


def test_load_hooks_reads_no_other_section() -> None:
    env = {"MERGEGATE_REVIEW__MAX_ROUNDS": "two", "MERGEGATE_NOPE__X": "1"}
    with pytest.raises(ConfigError):
        load_config(Path("/"), env=env, project_file=False)
    assert load_hooks({**env, "MERGEGATE_HOOKS__TIMEOUT_S": "5"}).timeout_s == 5.0


# ---------------------------------------------------------------- the hook itself
@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MERGEGATE_REVIEW__MAX_ROUNDS", "two"),
        ("MERGEGATE_FLEEET__WORKERS", "3"),
        ("MERGEGATE_DATABASE_URL", "mysql://nope"),
    ],
)
def test_another_sections_mistake_does_not_refuse_a_review(
    project: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    """The hook decides from `[hooks]` and the latch: an approving review is approved even
    when the environment holds a mistake in a section the hook never reads."""
    monkeypatch.setenv(name, value)
    answer = run_hook(recorded("post-tool-use-approve", cwd=project), project)
    assert "decision" not in answer, answer
    assert "APPROVED" in answer["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("name", "value", "key"),
    [
        ("MERGEGATE_HOOKS__TIMEOUT_S", "0", "hooks.timeout_s"),
        ("MERGEGATE_HOOKS__SUBAGENT_TYPES", "[1]", "hooks.subagent_types.0"),
        ("MERGEGATE_HOOKS__SUBAGENT_TYPE", '["*"]', "hooks.subagent_type"),
    ],
)
def test_a_hooks_mistake_still_blocks(
    project: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, key: str
) -> None:
    monkeypatch.setenv(name, value)
    answer = run_hook(recorded("post-tool-use-approve", cwd=project), project)
    assert answer["decision"] == "block"
    assert key in answer["reason"]
