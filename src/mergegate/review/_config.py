"""The configuration a review trusts: the base revision's, or a file a person named.

The change under review is written by the agent (or the pull request's author) being judged,
so its own `mergegate.toml` must not configure its gate: naming a rubber-stamp
`reviewer_cmd`, turning `review.mode` off or weakening the policy would make the change
approve itself — in the GitHub Action, with the workflow's token. `mergegate review` therefore
reads the configuration file as it is at the base revision (the same walk as the working
tree's: the nearest `mergegate.toml`, or `pyproject.toml` with `[tool.mergegate]`, from the
repository path up to the repository's top), or the file given with `--config`. The
environment and the command's flags apply on top, as always.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mergegate.config import (
    CONFIG_FILE,
    PYPROJECT,
    Config,
    ConfigText,
    find_config_file,
    load_config,
)
from mergegate.errors import ConfigError, UsageError
from mergegate.git import GitRepository

__all__ = ["TrustedConfig", "base_config_text", "review_config"]

MAX_CONFIG_BYTES = 1024 * 1024


@dataclass(frozen=True)
class TrustedConfig:
    """The configuration `mergegate review` uses, and where its file layer came from."""

    config: Config
    source: str
    """`--config FILE`, `BASE:path`, or `defaults (no file at BASE)`."""
    ignored: str | None = None
    """The working tree's configuration file when it differs from the one used (a note for
    the person: the change's own configuration was not applied)."""


def base_config_text(repo: GitRepository, base: str, start: Path) -> ConfigText | None:
    """The configuration file as it is at commit `base`: the first `mergegate.toml`, or
    `pyproject.toml` holding `[tool.mergegate]`, from `start` up to the repository's top."""
    top = repo.root.resolve()
    here = start.resolve()
    if here != top and top not in here.parents:
        raise UsageError(f"{start} is not inside the repository {top}")
    for directory in (here, *here.parents):
        prefix = directory.relative_to(top).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        found = _at(repo, base, prefix + CONFIG_FILE, pyproject=False)
        if found is None:
            found = _at(repo, base, prefix + PYPROJECT, pyproject=True)
        if found is not None or directory == top:
            return found
    return None  # pragma: no cover - the walk always reaches the top


def _at(repo: GitRepository, base: str, path: str, *, pyproject: bool) -> ConfigText | None:
    text = repo.read_file(base, path)
    if text is None:
        return None
    found = ConfigText(f"{base}:{path}", text, pyproject=pyproject)
    if pyproject and not _has_table(text):
        return None
    return found


def _has_table(text: str) -> bool:
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return True  # let the loader report the error with its label
    return isinstance(tool, dict) and "mergegate" in tool


def _file_text(path: Path) -> ConfigText:
    try:
        data = path.read_bytes()[: MAX_CONFIG_BYTES + 1]
    except OSError as exc:
        raise UsageError(f"cannot read --config {path}: {exc.strerror or exc}") from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise UsageError(f"--config {path} is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"not UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start}); TOML files are UTF-8",
            path=str(path),
        ) from None
    return ConfigText(str(path), text, pyproject=path.name == PYPROJECT)


def review_config(
    repo_path: Path,
    base: str,
    *,
    config_file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
) -> TrustedConfig:
    """The configuration for reviewing the change from `base` in the repository at
    `repo_path`: `config_file` when given, else the file at `base` (none there: defaults),
    then the environment and `overrides`. Raises `UsageError` / `ConfigError` (exit 2)."""
    if config_file is not None:
        named = _file_text(config_file)
        config = load_config(repo_path, overrides=overrides, text=named)
        return TrustedConfig(config, f"--config {config_file}")
    repo = GitRepository(repo_path)
    repo.resolve(base)  # an unknown base is a usage error here, before anything else
    text = base_config_text(repo, base, repo_path)
    config = load_config(repo_path, overrides=overrides, text=text, project_file=text is not None)
    source = text.label if text is not None else f"defaults (no configuration file at {base})"
    return TrustedConfig(config, source, _ignored(repo_path, text))


def _ignored(repo_path: Path, used: ConfigText | None) -> str | None:
    """The working tree's configuration file, when it says something other than `used`."""
    local = find_config_file(repo_path.resolve())[1]
    if local is None:
        return None
    try:
        same = used is not None and local.read_text("utf-8") == used.text
    except (OSError, UnicodeDecodeError):
        same = False
    return None if same else str(local)
