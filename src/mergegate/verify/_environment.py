"""The project's own environment for plan commands, and telling "not ready" from "fails".

A plan's `pytest` or `npm test` means the project's tools with the project's dependencies.
Before any command runs, the environment is found once, in this order:

1. `--env-cmd PREFIX` (e.g. `"uv run"`, `"nix develop -c"`): every command runs as
   `PREFIX COMMAND`, and nothing else is looked for on the Python side;
2. Python: `.venv/bin` or `venv/bin` (put first on `PATH`, `VIRTUAL_ENV` set); else `uv.lock`
   and `uv` → `uv run --frozen`; else `poetry.lock` and `poetry` → `poetry run`; else a
   `[tool.hatch.envs]` table and `hatch` → `hatch run`;
3. JavaScript: `node_modules/.bin` put first on `PATH`.

Package runners run offline: `npx X` runs as `npx --no-install X`, and every command sees
`npm_config_offline=true`, `UV_OFFLINE=1`, `PIP_NO_INDEX=1`: a runner about to download
fails instead (and `pnpm dlx`, `yarn dlx`, `bunx`, `uvx`, `pipx run`, which always download,
are not run at all).

After a command ran, `not_ready` decides whether a failure is the environment's rather than
the code's — *unverified: environment*, naming what is missing, never a gap:

* the program is missing: the command could not start, exit 126/127, or "command not found"
  (also inside `npm run`);
* a package runner would have downloaded (`could not determine executable to run`,
  `ENOTCACHED`, `npx canceled`);
* a test runner's usage error: pytest's exit 4, "unrecognized arguments", "Unknown option"
  (a plugin such as pytest-cov missing makes `--no-cov` a usage error);
* a third-party module missing: `No module named 'X'`, `Cannot find module 'X'`,
  `Cannot find package 'X'`, where X is not part of the repository (for JavaScript, and
  when `node_modules/` exists, only if `package.json` declares X: an undeclared import is
  the code's fault), or the project's own top-level package not importable at all (not
  installed); a missing *submodule* of the project's package (`app.cor`) is a failure.

Everything else (a failing test, a type error) is the code's: a failure.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mergegate.verify._commands import shell_data

__all__ = ["ProjectEnvironment", "find_environment", "not_ready"]

OFFLINE = {"npm_config_offline": "true", "UV_OFFLINE": "1", "PIP_NO_INDEX": "1"}
_DOWNLOADERS = (
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("bunx",),
    ("uvx",),
    ("pipx", "run"),
    ("npm", "exec"),
)
_NPX = re.compile(r"(^|&&|\|\||;|\()(\s*)npx\s+(?!--no-install\b|--no\b)")


@dataclass(frozen=True)
class ProjectEnvironment:
    """How plan commands run: a prefix, directories first on `PATH`, variables, and what was
    found or is missing (for the report)."""

    prefix: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    variables: dict[str, str] = field(default_factory=dict)
    found: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    node_modules: bool = False
    declared: frozenset[str] = frozenset()
    """Package names the project's package.json declares (dependencies of every kind)."""
    local_modules: frozenset[str] = frozenset()
    """Top-level names of the repository's own Python modules and packages."""

    def describe(self) -> str:
        parts = list(self.found) or ["no project environment found: commands use PATH as is"]
        parts += [f"missing: {m}" for m in self.missing]
        return "; ".join(parts)

    def command(self, argv: tuple[str, ...]) -> tuple[str, ...] | str:
        """The argv to start for `argv`, or why it must not run (it would download)."""
        for words in _DOWNLOADERS:
            if argv[: len(words)] == words:
                return f"`{' '.join(words)}` downloads the package it runs; not run offline"
        if argv[:1] == ("npx",) and argv[1:2] not in (("--no-install",), ("--no",)):
            argv = ("npx", "--no-install", *argv[1:])
        elif argv[:2] == ("sh", "-c") and len(argv) == 3:
            argv = ("sh", "-c", _offline_npx(argv[2]))
        return (*self.prefix, *argv)


def _offline_npx(script: str) -> str:
    """`script` with each `npx X` the shell would run made `npx --no-install X`; an `npx` in
    quoted or escaped text is data (`echo "a; npx b"`), kept byte for byte."""
    data = shell_data(script)

    def offline(match: re.Match[str]) -> str:
        if data[match.end(2)]:
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}npx --no-install "

    return _NPX.sub(offline, script)


def _which(name: str, path: str | None) -> bool:
    return shutil.which(name, path=path) is not None


def find_environment(
    root: Path,
    env_cmd: str | None = None,
    *,
    search_path: str | None = None,
    which: Callable[[str, str | None], bool] = _which,
) -> ProjectEnvironment:
    """The environment of the project at `root` (see the module docstring)."""
    found: list[str] = []
    missing: list[str] = []
    path: list[str] = []
    variables = dict(OFFLINE)
    prefix: tuple[str, ...] = ()
    if env_cmd:
        prefix = tuple(shlex.split(env_cmd))
        found.append(f"--env-cmd {env_cmd}")
    else:
        prefix = _python(
            root, found=found, path=path, variables=variables, search_path=search_path, which=which
        )
    node = (root / "node_modules").is_dir()
    if (root / "node_modules" / ".bin").is_dir():
        path.append(str(root / "node_modules" / ".bin"))
        found.append("node_modules/.bin")
    declared = _declared(root)
    if declared and not node:
        missing.append("node_modules/ (package.json declares dependencies: install them)")
    return ProjectEnvironment(
        prefix=prefix,
        path=tuple(path),
        variables=variables,
        found=tuple(found),
        missing=tuple(missing),
        node_modules=node,
        declared=declared,
        local_modules=_local_modules(root),
    )


def _python(
    root: Path,
    *,
    found: list[str],
    path: list[str],
    variables: dict[str, str],
    search_path: str | None,
    which: Callable[[str, str | None], bool],
) -> tuple[str, ...]:
    for name in (".venv", "venv"):
        bin_dir = root / name / "bin"
        if (bin_dir / "python").exists():
            path.append(str(bin_dir))
            variables["VIRTUAL_ENV"] = str(root / name)
            found.append(f"{name}/ (Python)")
            return ()
    if (root / "uv.lock").is_file() and which("uv", search_path):
        found.append("uv (uv.lock)")
        return ("uv", "run", "--frozen")
    if (root / "poetry.lock").is_file() and which("poetry", search_path):
        found.append("poetry (poetry.lock)")
        return ("poetry", "run")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and which("hatch", search_path):
        text = pyproject.read_text("utf-8", "replace")[:200_000]
        if "[tool.hatch.envs" in text:
            found.append("hatch (pyproject.toml)")
            return ("hatch", "run")
    return ()


def _declared(root: Path) -> frozenset[str]:
    manifest = root / "package.json"
    try:
        data = json.loads(manifest.read_text("utf-8", "replace")[:1_000_000])
    except (OSError, ValueError):
        return frozenset()
    names: set[str] = set()
    if isinstance(data, dict):
        for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
            table = data.get(key)
            if isinstance(table, dict):
                names.update(str(k) for k in table)
    return frozenset(names)


def _local_modules(root: Path) -> frozenset[str]:
    names: set[str] = set()
    for base in (root, root / "src", root / "lib"):
        try:
            entries = list(base.iterdir())[:5000]
        except OSError:
            continue
        for entry in entries:
            if entry.suffix == ".py":
                names.add(entry.stem)
            elif entry.is_dir() and not entry.name.startswith("."):
                names.add(entry.name)
    return frozenset(names)


# ---------------------------------------------------------------- after a run

_NOT_FOUND = [
    re.compile(r"(?:^|\n)(?:\S*sh: (?:line )?\d+: )?([\w./@+-]+): (?:command )?not found"),
    re.compile(r"command not found: ([\w./@+-]+)"),
    re.compile(r"env: '?([\w./@+-]+?)'?: No such file or directory"),
]
_DOWNLOAD = re.compile(
    r"could not determine executable to run|npx canceled due to missing packages|ENOTCACHED|"
    r"need to install the following packages",
    re.IGNORECASE,
)
_USAGE = re.compile(
    r"(error: unrecognized arguments?:[^\n]*|Unknown option[^\n]*|Unrecognized CLI Parameter[^\n]*|"
    r"error: no such option[^\n]*)"
)
_PY_MISSING = re.compile(r"No module named '?([\w.]+)'?")
_JS_MISSING = re.compile(r"Cannot find (?:module|package) '([^'\n]+)'")


def not_ready(
    env: ProjectEnvironment, argv: tuple[str, ...], code: int | None, output: str
) -> str | None:
    """Why a failed command says the environment is not ready (named), or None."""
    missing = _missing_program(output)
    if code in (126, 127):
        name = missing or (argv[0] if argv else "?")
        return f"`{name}` is not installed here (exit {code}){_hint(env)}"
    if missing is not None:
        return f"`{missing}` is not installed here{_hint(env)}"
    if _DOWNLOAD.search(output):
        return f"a package runner would have downloaded what it runs (offline){_hint(env)}"
    usage = _usage(argv, code, output)
    if usage is not None:
        return usage
    return _missing_module(env, output)


def _hint(env: ProjectEnvironment) -> str:
    return f"; {env.missing[0]}" if env.missing else ""


def _missing_program(output: str) -> str | None:
    for pattern in _NOT_FOUND:
        match = pattern.search(output)
        if match is not None:
            return match.group(1)
    return None


def _usage(argv: tuple[str, ...], code: int | None, output: str) -> str | None:
    text = " ".join(argv)
    match = _USAGE.search(output)
    if "pytest" in text and code == 4:
        why = match.group(1).strip() if match else "see the output"
        return f"pytest usage error (exit 4: {why}); a pytest plugin the command needs is missing?"
    if match is not None:
        return f"the test runner did not accept its arguments ({match.group(1).strip()[:200]})"
    return None


def _missing_module(env: ProjectEnvironment, output: str) -> str | None:
    for match in _PY_MISSING.finditer(output):
        name = match.group(1)
        top = name.split(".", 1)[0]
        if top not in env.local_modules:
            return f"the Python module `{name}` is not installed here"
        if name == top:  # the project's own package, not importable: not installed here
            return f"the project's own package `{top}` is not importable here (not installed?)"
        # a missing submodule of the project's own package is the code's: a failure
    for match in _JS_MISSING.finditer(output):
        spec = match.group(1)
        if spec.startswith((".", "/", "@/", "~/", "#")):
            continue
        package = "/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0]
        if package.startswith("node:"):
            continue
        if not env.node_modules or package in env.declared:
            return f"the package `{package}` is not installed here{_hint(env)}"
    return None
