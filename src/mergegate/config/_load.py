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
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from mergegate.config._database import redact_url
from mergegate.config._models import POLICY_PRESETS, SECTIONS, Config
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

ENV_PREFIX = "MERGEGATE_"
STATE_DIR_ENV = "MERGEGATE_STATE_DIR"
DATABASE_URL_ENV = "MERGEGATE_DATABASE_URL"
"""The short name of `MERGEGATE_ENGINE__DATABASE_URL`."""
CONFIG_FILE = "mergegate.toml"
PYPROJECT = "pyproject.toml"
STATE_DIR_NAME = ".mergegate"
DEFAULTS_LABEL = "defaults"
_SECRET_KEYS = frozenset({"engine.database_url"})


@dataclass(frozen=True)
class ConfigText:
    """A configuration file's text from somewhere other than the working tree (a base
    revision, a file a person named): `label` names it in errors, `pyproject` says whether it
    is a `pyproject.toml` (whose `[tool.mergegate]` table is the configuration)."""

    label: str
    text: str
    pyproject: bool = False

    def table(self) -> dict[str, Any]:
        """The configuration table it holds (`{}` for a pyproject without one)."""
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"invalid TOML: {exc}", path=self.label) from None
        if not self.pyproject:
            return data
        tool = data.get("tool", {})
        table = tool.get("mergegate") if isinstance(tool, dict) else None
        if table is not None and not isinstance(table, dict):
            raise ConfigError(
                "[tool.mergegate] must be a table", key="tool.mergegate", path=self.label
            )
        return table or {}


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
        _merge(merged, text.table(), text.label, provenance, ())
    elif not project_file:
        source = None
    elif source is not None:
        _merge(merged, _read_file(source), str(source), provenance, ())
    environ = os.environ if env is None else env
    for parts, value, label in _env_entries(environ):
        _merge(merged, _nest(parts, value), label, provenance, ())
    _merge_database_url_env(merged, environ, provenance)
    for dotted, given in (overrides or {}).items():
        if given is not None:
            _merge(
                merged, _nest(tuple(dotted.split(".")), given), f"override {dotted}", provenance, ()
            )
    _reject_unknown_sections(merged, provenance)
    _apply_policy_preset(merged, provenance)
    try:
        config = Config.model_validate(merged)
    except ValidationError as exc:
        raise _config_error(exc, provenance) from None
    return config.model_copy(update={"root": root, "source": source})


def find_config_file(start: Path) -> tuple[Path, Path | None]:
    """Return `(project_root, config_file_or_None)` for a directory.

    Walks from `start` upwards; the first directory with `mergegate.toml`, or a
    `pyproject.toml` holding `[tool.mergegate]`, is the root. The walk stops at a directory
    holding `.git` (the root then, even without a file); with neither, `start` is the root.
    """
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_FILE
        if candidate.is_file():
            return directory, candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _pyproject_table(pyproject) is not None:
            return directory, pyproject
        if (directory / ".git").exists():
            return directory, None
    return start, None


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


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(
            f"cannot read config file: {exc.strerror or exc}", path=str(path)
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", path=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"not UTF-8 (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "TOML files are UTF-8",
            path=str(path),
        ) from None


def _pyproject_table(path: Path) -> dict[str, Any] | None:
    tool = _read_toml(path).get("tool", {})
    table = tool.get("mergegate") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError("[tool.mergegate] must be a table", key="tool.mergegate", path=str(path))
    return table


def _read_file(path: Path) -> dict[str, Any]:
    if path.name == PYPROJECT:
        return _pyproject_table(path) or {}
    return _read_toml(path)


def _env_entries(environ: Mapping[str, str]) -> list[tuple[tuple[str, ...], object, str]]:
    """`MERGEGATE_A__B=v` → `(("a", "b"), parsed v, label)`; other variables are ignored."""
    entries = []
    for name in sorted(environ):
        if not name.upper().startswith(ENV_PREFIX):
            continue
        rest = name[len(ENV_PREFIX) :]
        if "__" not in rest:
            continue  # MERGEGATE_STATE_DIR and friends are not config keys
        parts = tuple(part.lower() for part in rest.split("__"))
        if any(not part for part in parts):
            raise ConfigError("empty key part in environment variable", path=f"environment {name}")
        entries.append((parts, _parse_env_value(environ[name]), f"environment variable {name}"))
    return entries


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
    _merge(merged, {"engine": {"database_url": raw}}, label, provenance, ())


def _parse_env_value(raw: str) -> object:
    """A TOML value if the text is one (`2`, `true`, `["a"]`), else the text itself."""
    try:
        parsed = tomllib.loads(f"value = {raw}")
    except tomllib.TOMLDecodeError:
        return raw
    if set(parsed) != {"value"}:
        return raw  # the text smuggled in more than one value: keep it as a plain string
    return parsed["value"]


def _nest(parts: tuple[str, ...], value: object) -> dict[str, Any]:
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def _merge(
    base: dict[str, Any],
    incoming: Mapping[str, Any],
    label: str,
    provenance: dict[str, str],
    prefix: tuple[str, ...],
) -> None:
    """Merge `incoming` into `base` in place, tables key by key; remember who set each key."""
    for key, value in incoming.items():
        path = (*prefix, str(key))
        current = base.get(key)
        if isinstance(value, Mapping) and isinstance(current, dict):
            _merge(current, value, label, provenance, path)
            provenance.setdefault(".".join(path), label)
        else:
            base[key] = dict(value) if isinstance(value, Mapping) else value
            provenance[".".join(path)] = label


def _reject_unknown_sections(merged: Mapping[str, Any], provenance: Mapping[str, str]) -> None:
    for key in merged:
        if key not in SECTIONS:
            hint = _did_you_mean(key, SECTIONS)
            raise ConfigError(
                f"unknown section{hint}; known sections: {', '.join(SECTIONS)}",
                key=key,
                path=provenance.get(key, DEFAULTS_LABEL),
            )


def _config_error(exc: ValidationError, provenance: Mapping[str, str]) -> ConfigError:
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(str(part) for part in err["loc"])
        key = ".".join(loc)
        where = _source_of(loc, provenance)
        if err["type"] == "extra_forbidden":
            message = f"unknown key{_did_you_mean(loc[-1], _known_keys(loc[:-1]))}"
        elif key in _SECRET_KEYS:
            message = err["msg"]  # never echo a value that may hold a password
        else:
            # Belt and braces: any other value that holds a URL loses its password too.
            message = f"{err['msg']} (got {redact_url(repr(err['input']))})"
        problems.append((key, where, message))
    key, where, message = problems[0]
    if len(problems) > 1:
        rest = "; ".join(f"{k}: {m} [{w}]" for k, w, m in problems[1:])
        message = f"{message}; also {rest}"
    return ConfigError(message, key=key, path=where)


def _source_of(loc: tuple[str, ...], provenance: Mapping[str, str]) -> str:
    for end in range(len(loc), 0, -1):
        label = provenance.get(".".join(loc[:end]))
        if label is not None:
            return label
    return DEFAULTS_LABEL


def _known_keys(section_loc: tuple[str, ...]) -> list[str]:
    model: type[BaseModel] = Config
    for part in section_loc:
        field = model.model_fields.get(part)
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return [name for name in model.model_fields if name not in ("root", "source")]


def _did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    import difflib  # noqa: PLC0415 - lazy: only a configuration with a mistake needs it

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
