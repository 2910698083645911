"""Loading configuration: one precedence order, defaults < file < environment < flags.

* **File**: `mergegate.toml` in the nearest ancestor directory of the start directory, or the
  `[tool.mergegate]` table of a `pyproject.toml` there (`mergegate.toml` wins when both exist).
  The search stops at the repository root (a directory holding `.git`).
* **Environment**: `MERGEGATE_<SECTION>__<KEY>` (double underscore between levels, any case),
  e.g. `MERGEGATE_REVIEW__MAX_ROUNDS=2`, `MERGEGATE_REVIEW__POLICY__MINOR_BLOCKS=true`. Values
  are read as TOML values when they parse (`2`, `true`, `["spec"]`, `{review-verdict = 2}`),
  otherwise as plain strings (`claude`, `my-reviewer --strict`). `MERGEGATE_DATABASE_URL` is
  the conventional short name of `MERGEGATE_ENGINE__DATABASE_URL` (read as plain text); both
  set to different values is an error.
  A caller that must not trust the project's own file passes `project_file=False` (the hook:
  the project tree is an agent's to write) or the file's text from a trusted place
  (`ConfigText`: `mergegate review` reads it from the base revision, or `--config FILE`).
* **Flags**: `overrides` with dotted keys, e.g. `{"review.max_rounds": 2}`; `None` means "not
  given" so a CLI can pass every option unconditionally.

Tables merge key by key across layers; any other value replaces the lower layer's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from mergegate.config._models import POLICY_PRESETS, SECTIONS, Config
from mergegate.config._sources import (
    CONFIG_FILE,
    DEFAULTS_LABEL,
    ENV_PREFIX,
    PYPROJECT,
    ConfigText,
    Problem,
    config_error,
    did_you_mean,
    env_entries,
    find_config_file,
    merge,
    nest,
    read_file,
)
from mergegate.errors import ConfigError

__all__ = [
    "CONFIG_FILE",
    "DATABASE_URL_ENV",
    "ENV_PREFIX",
    "PYPROJECT",
    "STATE_DIR_ENV",
    "ConfigText",
    "ensure_state_dir",
    "find_config_file",
    "load_config",
    "state_dir",
]

STATE_DIR_ENV = "MERGEGATE_STATE_DIR"
DATABASE_URL_ENV = "MERGEGATE_DATABASE_URL"
"""The short name of `MERGEGATE_ENGINE__DATABASE_URL`."""
STATE_DIR_NAME = ".mergegate"


def load_config(
    start_dir: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
    project_file: bool = True,
    text: ConfigText | None = None,
) -> Config:
    """Build the configuration for the project around `start_dir` (default: the cwd).

    The file layer is the project's own file, or `text` when given (the project's file is
    then not read), or nothing when `project_file` is false. Raises `ConfigError` (exit 2)
    naming the key and where it came from — the file, the environment variable or the
    override — when a value is invalid or a key is unknown.
    """
    start = (start_dir or Path.cwd()).resolve()
    root, source = find_config_file(start)
    merged: dict[str, Any] = Config().model_dump(mode="python")
    provenance: dict[str, str] = {}
    if text is not None:
        source = None
        merge(merged, text.table(), text.label, provenance, ())
    elif not project_file:
        source = None
    elif source is not None:
        merge(merged, read_file(source), str(source), provenance, ())
    environ = os.environ if env is None else env
    for parts, value, label in env_entries(environ):
        merge(merged, nest(parts, value), label, provenance, ())
    _merge_database_url_env(merged, environ, provenance)
    for dotted, given in (overrides or {}).items():
        if given is not None:
            merge(
                merged, nest(tuple(dotted.split(".")), given), f"override {dotted}", provenance, ()
            )
    _reject_unknown_sections(merged, provenance)
    _apply_policy_preset(merged, provenance)
    try:
        config = Config.model_validate(merged)
    except ValidationError as exc:
        raise _config_error(exc, provenance) from None
    return config.model_copy(update={"root": root, "source": source})


def state_dir(
    config_or_cwd: Config | Path | str | None = None, *, env: Mapping[str, str] | None = None
) -> Path:
    """Where mergegate keeps its state: `$MERGEGATE_STATE_DIR`, else `<project root>/.mergegate`.

    Pass a loaded `Config` (its root is used) or a directory to search from (default: cwd).
    Nothing is created here; writers create what they need.
    """
    environ = os.environ if env is None else env
    override = environ.get(STATE_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    if isinstance(config_or_cwd, Config):
        root = config_or_cwd.root or find_config_file(Path.cwd().resolve())[0]
    else:
        start = Path(config_or_cwd) if config_or_cwd is not None else Path.cwd()
        root = find_config_file(start.resolve())[0]
    return root / STATE_DIR_NAME


_IGNORE_ALL = "# made by mergegate: its state (runs, prompts, logs) is never committed\n*\n"


def ensure_state_dir(path: Path) -> Path:
    """Make the state directory, with a `.gitignore` of its own that ignores everything in it
    (so `git add -A` never stages run state, prompts or logs, and a run's own dirty-tree check
    never sees it); an existing `.gitignore` is left as it is. `path`, for chaining."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        try:
            with ignore.open("x", encoding="utf-8") as handle:
                handle.write(_IGNORE_ALL)
        except FileExistsError:
            pass  # another process wrote it first
    return path


def _apply_policy_preset(merged: dict[str, Any], provenance: dict[str, str]) -> None:
    """`[review.policy] preset`: its keys, where no layer wrote the key itself (the defaults
    layer does not count: a preset replaces the defaults, a written key replaces the preset)."""
    review = merged.get("review")
    policy = review.get("policy") if isinstance(review, dict) else None
    if not isinstance(policy, dict) or not isinstance(policy.get("preset"), str):
        return
    for key, value in POLICY_PRESETS.get(policy["preset"], {}).items():
        if f"review.policy.{key}" not in provenance:
            policy[key] = value


def _merge_database_url_env(
    merged: dict[str, Any], environ: Mapping[str, str], provenance: dict[str, str]
) -> None:
    """Apply `MERGEGATE_DATABASE_URL` at the environment layer (above the file, below flags)."""
    raw = environ.get(DATABASE_URL_ENV, "")
    if not raw:
        return
    label = f"environment variable {DATABASE_URL_ENV}"
    key = "engine.database_url"
    other = provenance.get(key, "")
    if other.startswith("environment variable") and merged["engine"]["database_url"] != raw:
        raise ConfigError(
            f"{DATABASE_URL_ENV} and {other.removeprefix('environment variable ')} are both set, "
            "to different URLs; set one",
            key=key,
            path=label,
        )
    merge(merged, {"engine": {"database_url": raw}}, label, provenance, ())


def _reject_unknown_sections(merged: Mapping[str, Any], provenance: Mapping[str, str]) -> None:
    for key in merged:
        if key not in SECTIONS:
            hint = did_you_mean(key, SECTIONS)
            raise ConfigError(
                f"unknown section{hint}; known sections: {', '.join(SECTIONS)}",
                key=key,
                path=provenance.get(key, DEFAULTS_LABEL),
            )


def _config_error(exc: ValidationError, provenance: Mapping[str, str]) -> ConfigError:
    problems = [
        Problem(tuple(str(part) for part in err["loc"]), err["type"], err["msg"], err["input"])
        for err in exc.errors(include_url=False)
    ]
    return config_error(problems, provenance, _known_keys)


def _known_keys(section_loc: tuple[str, ...]) -> list[str]:
    model: type[BaseModel] = Config
    for part in section_loc:
        field = model.model_fields.get(part)
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return [name for name in model.model_fields if name not in ("root", "source")]
