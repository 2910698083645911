"""Where configuration comes from, read without validating it: the project's file and the
`MERGEGATE_<SECTION>__<KEY>` environment variables, merged layer by layer with who set each key.

Standard library only: the hook (`mergegate hook ...`, on every Claude Code tool call) reads
its `[hooks]` section through here (`_hooks`) without loading pydantic and the other sections'
models; `load_config` (`_load`) reads the whole configuration through the same functions, so
both layer alike. `tomllib` (and the patterns it compiles at import) loads only when there is
a file or a `MERGEGATE_…` variable to read: most hook calls have neither.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mergegate.errors import ConfigError

__all__ = [
    "CONFIG_FILE",
    "DEFAULTS_LABEL",
    "ENV_PREFIX",
    "PYPROJECT",
    "ConfigText",
    "Problem",
    "config_error",
    "did_you_mean",
    "env_entries",
    "find_config_file",
    "merge",
    "nest",
    "read_file",
    "read_toml",
]

ENV_PREFIX = "MERGEGATE_"
CONFIG_FILE = "mergegate.toml"
PYPROJECT = "pyproject.toml"
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
        import tomllib  # noqa: PLC0415 - only with a file to read (module docstring)

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


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at `path`; `ConfigError` naming it when it cannot be read or parsed."""
    import tomllib  # noqa: PLC0415 - only with a file to read (module docstring)

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
    tool = read_toml(path).get("tool", {})
    table = tool.get("mergegate") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError("[tool.mergegate] must be a table", key="tool.mergegate", path=str(path))
    return table


def read_file(path: Path) -> dict[str, Any]:
    """The configuration table of a `mergegate.toml` or a `pyproject.toml`."""
    if path.name == PYPROJECT:
        return _pyproject_table(path) or {}
    return read_toml(path)


def env_entries(
    environ: Mapping[str, str], section: str | None = None
) -> list[tuple[tuple[str, ...], object, str]]:
    """`MERGEGATE_A__B=v` → `(("a", "b"), parsed v, label)`; other variables are ignored, and
    so are other sections' when `section` is given (their mistakes are not its concern)."""
    entries = []
    for name in sorted(environ):
        if not name.upper().startswith(ENV_PREFIX):
            continue
        rest = name[len(ENV_PREFIX) :]
        if "__" not in rest:
            continue  # MERGEGATE_STATE_DIR and friends are not config keys
        parts = tuple(part.lower() for part in rest.split("__"))
        if section is not None and parts[0] != section:
            continue
        if any(not part for part in parts):
            raise ConfigError("empty key part in environment variable", path=f"environment {name}")
        entries.append((parts, _parse_env_value(environ[name]), f"environment variable {name}"))
    return entries


def _parse_env_value(raw: str) -> object:
    """A TOML value if the text is one (`2`, `true`, `["a"]`), else the text itself."""
    import tomllib  # noqa: PLC0415 - only with a variable to read (module docstring)

    try:
        parsed = tomllib.loads(f"value = {raw}")
    except tomllib.TOMLDecodeError:
        return raw
    if set(parsed) != {"value"}:
        return raw  # the text smuggled in more than one value: keep it as a plain string
    return parsed["value"]


def nest(parts: tuple[str, ...], value: object) -> dict[str, Any]:
    """`("a", "b"), v` → `{"a": {"b": v}}`."""
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def merge(
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
            merge(current, value, label, provenance, path)
            provenance.setdefault(".".join(path), label)
        else:
            base[key] = dict(value) if isinstance(value, Mapping) else value
            provenance[".".join(path)] = label


@dataclass(frozen=True)
class Problem:
    """One invalid value: where (`loc`, from the configuration's top), pydantic's error type
    (`kind`: `extra_forbidden` for an unknown key), its message and the value given."""

    loc: tuple[str, ...]
    kind: str
    message: str
    value: object


def config_error(
    problems: list[Problem],
    provenance: Mapping[str, str],
    known: Callable[[tuple[str, ...]], list[str]],
) -> ConfigError:
    """The one `ConfigError` for `problems` (at least one): the first names its key and the
    layer that set it, the rest follow. `known(table's loc)` lists that table's keys (for
    "did you mean"). No value that may hold a password is echoed."""
    from mergegate.config._database import redact_url  # noqa: PLC0415 - an error's path only

    found = []
    for problem in problems:
        key = ".".join(problem.loc)
        where = _source_of(problem.loc, provenance)
        if problem.kind == "extra_forbidden":
            choices = known(problem.loc[:-1])
            message = f"unknown key{did_you_mean(problem.loc[-1], choices)}"
        elif key in _SECRET_KEYS:
            message = problem.message  # never echo a value that may hold a password
        else:
            # Belt and braces: any other value that holds a URL loses its password too.
            message = f"{problem.message} (got {redact_url(repr(problem.value))})"
        found.append((key, where, message))
    key, where, message = found[0]
    if len(found) > 1:
        rest = "; ".join(f"{k}: {m} [{w}]" for k, w, m in found[1:])
        message = f"{message}; also {rest}"
    return ConfigError(message, key=key, path=where)


def _source_of(loc: tuple[str, ...], provenance: Mapping[str, str]) -> str:
    for end in range(len(loc), 0, -1):
        label = provenance.get(".".join(loc[:end]))
        if label is not None:
            return label
    return DEFAULTS_LABEL


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """` (did you mean 'x'?)` for the closest of `choices`, or `""`."""
    import difflib  # noqa: PLC0415 - lazy: only a configuration with a mistake needs it

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
