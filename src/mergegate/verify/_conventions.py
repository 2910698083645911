"""How a file gets loaded when nothing imports it: entry points, manifests, framework folders,
references by path and directory listings.

"Wired" asks whether the rest of the project reaches a file. An import is the common way, but
not the only one: a package's manifest points at its entry points (`package.json` `main`,
`bin`, `exports`, `scripts`; `pyproject.toml` scripts and entry points), frameworks load files
by where they are (Next.js `app/**/page.tsx`, `pages/`, SvelteKit `+page.svelte`, Django
`migrations/`…), configuration and HTML name files by path (`index.html`'s
`<script src="/src/main.tsx">`, `setupFiles: ["./tests/setup.ts"]`), and plugin systems list a
directory (`readdirSync(path.join(__dirname, "commands"))`, `import.meta.glob("./routes/*")`).

`loaded_by` answers with the first of these it finds, with the file and line as evidence, or
None; the caller then says "nothing imports it" as *uncertain*, never as a gap on its own.
Everything here reads files of the tree: untrusted text, read bounded and parsed with
`json`/`tomllib` (a manifest that does not parse is simply not evidence).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from mergegate.verify._code import is_entry_point, language_of, without_comments
from mergegate.verify._tree import TreeIndex

__all__ = ["LoadedBy", "loaded_by"]


@dataclass(frozen=True, slots=True)
class LoadedBy:
    """Why a file counts as wired without an importer, and where that shows."""

    how: str
    where: str

    def __str__(self) -> str:
        return f"{self.how} ({self.where})"


# Framework folders: a file here is loaded by the framework because of where it is.
_FRAMEWORK = [
    (
        re.compile(
            r"(^|/)app/(.+/)?(page|layout|route|loading|error|not-found|template|default|"
            r"global-error|head|opengraph-image|twitter-image|icon|apple-icon|sitemap|"
            r"robots|manifest)\.[cm]?[jt]sx?$"
        ),
        "a Next.js app-router file",
    ),
    (re.compile(r"(^|/)(src/)?(middleware|instrumentation)\.[cm]?[jt]s$"), "a Next.js root file"),
    (
        re.compile(r"(^|/)(src/)?pages/.+\.([cm]?[jt]sx?|vue|astro|md|mdx|svelte)$"),
        "a file-routed page (pages/)",
    ),
    (re.compile(r"(^|/)(src/)?routes/.+\.([cm]?[jt]sx?|svelte|vue)$"), "a file-routed route"),
    (re.compile(r"(^|/)app/(root|entry\.client|entry\.server)\.[jt]sx?$"), "a Remix entry"),
    (re.compile(r"(^|/)src/hooks\.(server|client)\.[jt]s$"), "a SvelteKit hook"),
    (
        re.compile(
            r"^(app/)?(layouts|middleware|plugins|composables|server/api|server/routes|"
            r"server/middleware)/.+\.([cm]?[jt]sx?|vue)$"
        ),
        "a Nuxt convention folder",
    ),
    (re.compile(r"(^|/)app\.vue$"), "the Nuxt app root"),
    (re.compile(r"(^|/)migrations/[^/]+\.py$"), "a migration (loaded by the migration tool)"),
    (re.compile(r"(^|/)alembic/(env\.py|versions/[^/]+\.py)$"), "an Alembic migration"),
    (re.compile(r"(^|/)management/commands/[^/]+\.py$"), "a Django management command"),
    (
        re.compile(r"(^|/)(settings|urls|wsgi|asgi|admin|apps|models|views|signals|tasks)\.py$"),
        "a Django module loaded by convention",
    ),
    (re.compile(r"(^|/)conftest\.py$"), "a pytest conftest"),
    (re.compile(r"\.stories\.[cm]?[jt]sx?$"), "a Storybook story"),
    (re.compile(r"(^|/)\.github/"), "a GitHub configuration file"),
    (
        re.compile(
            r"(^|/)(vite|vitest|jest|next|nuxt|svelte|astro|tailwind|postcss|eslint|"
            r"playwright|webpack|rollup|babel|tsup|drizzle|prettier)\.config\.[cm]?[jt]s$"
        ),
        "a tool's configuration file",
    ),
]
# Configuration-like text files whose contents may name a file by path.
_REFERENCE_SUFFIXES = frozenset(
    {".json", ".jsonc", ".yaml", ".yml", ".toml", ".html", ".htm", ".cfg", ".ini", ".xml"}
)
_LISTING = re.compile(
    r"\b(readdirSync|readdir|opendir|globSync|glob|fg|fastGlob|require\.context|"
    r"import\.meta\.glob|listdir|scandir|iterdir|rglob|walk|iter_modules|walk_packages|"
    r"entry_points)\s*\("
)
_STRING = re.compile(r"""(["'`])([^"'`\n]{1,300})\1""")
_MAX_MANIFEST = 1 << 20
_NEAR = 6


def loaded_by(tree: TreeIndex, rel: str) -> LoadedBy | None:
    """How the project loads `rel` without importing it, or None when nothing shows it."""
    for pattern, what in _FRAMEWORK:
        if pattern.search(rel):
            return LoadedBy(what, rel)
    if is_entry_point(rel):
        return LoadedBy("an entry point, test or script by its name or folder", rel)
    for finder in (_package_json, _pyproject, _referenced, _listed):
        found = finder(tree, rel)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------- manifests


def _manifests(tree: TreeIndex, rel: str, name: str) -> Iterator[tuple[str, str]]:
    """(manifest path, its directory) for every `name` in a folder above `rel`."""
    parts = PurePosixPath(rel).parts[:-1]
    for depth in range(len(parts), -1, -1):
        folder = "/".join(parts[:depth])
        path = f"{folder}/{name}" if folder else name
        if path in tree.file_set():
            yield path, folder


def _same_file(folder: str, value: str, rel: str) -> bool:
    """True when `value` (a path written in a manifest in `folder`) names `rel`."""
    raw = value.strip().removeprefix("./")
    if not raw or raw.startswith(("/", "..")) or "://" in raw:
        return False
    joined = PurePosixPath(folder, raw).as_posix() if folder else raw
    if joined == rel:
        return True
    stem = PurePosixPath(rel).with_suffix("").as_posix()
    # `main: dist/index.js` is built from `src/index.ts`; a manifest naming the built file
    # names the source by its stem under src/ or lib/.
    built = PurePosixPath(joined).with_suffix("").as_posix()
    for out, src in (("dist/", "src/"), ("build/", "src/"), ("lib/", "src/"), ("out/", "src/")):
        prefix = f"{folder}/{out}" if folder else out
        if built.startswith(prefix):
            source = (f"{folder}/{src}" if folder else src) + built[len(prefix) :]
            if source == stem:
                return True
    return built == stem


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value (bounded by the manifest's size)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _package_json(tree: TreeIndex, rel: str) -> LoadedBy | None:
    for path, folder in _manifests(tree, rel, "package.json"):
        text = tree.text(path)
        if not text or len(text) > _MAX_MANIFEST:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for key in ("main", "module", "browser", "types", "typings", "bin", "exports", "files"):
            if any(_same_file(folder, s, rel) for s in _strings(data.get(key))):
                return LoadedBy(f"named by `{key}` of {path}", path)
        scripts = data.get("scripts")
        for script in _strings(scripts if isinstance(scripts, dict) else None):
            if any(_same_file(folder, word, rel) for word in script.split()):
                return LoadedBy(f"run by a script of {path}", path)
    return None


def _python_module(rel: str) -> str | None:
    if language_of(rel) != "python":
        return None
    parts = list(PurePosixPath(rel).with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts else None


def _pyproject(tree: TreeIndex, rel: str) -> LoadedBy | None:
    module = _python_module(rel)
    if module is None:
        return None
    for path, _ in _manifests(tree, rel, "pyproject.toml"):
        text = tree.text(path)
        if not text or len(text) > _MAX_MANIFEST:
            continue
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError):
            continue
        project = data.get("project", {})
        poetry = (
            data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        )
        tables = [project.get("scripts"), project.get("gui-scripts"), poetry.get("scripts")]
        entry_points = project.get("entry-points")
        if isinstance(entry_points, dict):
            tables.extend(entry_points.values())
        for value in _strings([t for t in tables if isinstance(t, dict)]):
            target = value.split(":", 1)[0].strip()
            if target == module or target.endswith("." + module) or module.endswith("." + target):
                return LoadedBy(f"an entry point in {path} ({value})", path)
    return None


# ---------------------------------------------------------------- references


def _names_for(rel: str) -> list[str]:
    """How other files may name `rel`: its path, without extension, and its module path."""
    pure = PurePosixPath(rel)
    names = [rel, pure.with_suffix("").as_posix()]
    module = _python_module(rel)
    if module and "." in module:
        names.append(module)
    return [n for n in names if len(n) >= 4]


def _referenced(tree: TreeIndex, rel: str) -> LoadedBy | None:
    """A configuration file, HTML page or code string that names `rel` by path."""
    names = _names_for(rel)
    for other in tree.files():
        if other == rel:
            continue
        suffix = PurePosixPath(other).suffix.lower()
        code = language_of(other) != "text"
        if suffix not in _REFERENCE_SUFFIXES and not code:
            continue
        text = tree.text(other)
        if not text:
            continue
        if code:  # a path in a comment loads nothing
            text = without_comments(other, text)
        hit = _reference_in(text, other, names, strings_only=code)
        if hit is not None:
            return LoadedBy(f"named by path in {other}", f"{other}:{hit}")
    return None


def _reference_in(text: str, other: str, names: list[str], *, strings_only: bool) -> int | None:
    folder = PurePosixPath(other).parent.as_posix()
    for match in _STRING.finditer(text) if strings_only else _words(text):
        value = match.group(2) if strings_only else match.group(0)
        candidates = {value.strip().lstrip("/").removeprefix("./")}
        if folder not in ("", ".") and value.startswith("."):
            joined = PurePosixPath(folder, value).as_posix()
            candidates.add(_normalise(joined))
        if any(c in names for c in candidates):
            return text.count("\n", 0, match.start()) + 1
    return None


def _words(text: str) -> Iterator[re.Match[str]]:
    return re.finditer(r"[\w./@-]{4,300}", text)


def _normalise(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)


def _listed(tree: TreeIndex, rel: str) -> LoadedBy | None:
    """A code file that lists `rel`'s directory (readdir, glob, import.meta.glob, listdir…)."""
    folder = PurePosixPath(rel).parent
    if folder.as_posix() in ("", "."):
        return None
    name = folder.name
    for other in tree.files():
        if other == rel or language_of(other) == "text":
            continue
        text = tree.text(other)
        if not text:
            continue
        text = without_comments(other, text)
        calls = [text.count("\n", 0, m.start()) + 1 for m in _LISTING.finditer(text)]
        if not calls:
            continue
        for match in _STRING.finditer(text):
            value = match.group(2).strip().rstrip("/")
            words = re.split(r"[/*{}]+", value)
            if name not in words and not value.endswith(folder.as_posix()):
                continue
            line = text.count("\n", 0, match.start()) + 1
            # the folder's name next to a listing call (a few lines apart), not anywhere
            if any(abs(line - call) <= _NEAR for call in calls):
                where = f"{other}:{line}"
                return LoadedBy(f"its folder {folder.as_posix()}/ is listed by {other}", where)
    return None
