"""The work tree as the artifact and key-link checks see it: files, their text, their imports.

Walks the tree once (skipping `.git`, dependency and build directories, planning notes and
mergegate's own state), bounded in files and in bytes per file. "Wired" means another file
of the tree imports the artifact (Python module paths, JS/TS specifiers — relative, `@/`/`~/`
aliases, directory `index` files —, Go package import paths) or, for languages without an
import resolver here, names it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mergegate.verify._code import import_specifiers, language_of

__all__ = ["ImportHit", "TreeIndex"]

_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        "dist",
        "build",
        ".next",
        ".nuxt",
        "target",
        "vendor",
        "coverage",
        ".mergegate",
        ".planning",
        ".paul",
    }
)
MAX_FILES = 50_000
MAX_FILE_BYTES = 2 << 20
_JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
_ALIASES = ("@/", "~/", "#/", "src/")


@dataclass(frozen=True, slots=True)
class ImportHit:
    """A file that imports (or names) another: where, and the line that does it."""

    path: str
    line: int
    spec: str


@dataclass
class TreeIndex:
    """Lazy, cached view of one work tree; paths are POSIX, relative to `root`."""

    root: Path
    _files: list[str] | None = None
    _file_set: frozenset[str] | None = None
    renames: dict[str, str] = field(default_factory=dict)
    changed: tuple[str, ...] = ()
    """Files the phase's commits changed (`base..HEAD`), when the base is known."""
    """Paths the phase's own commits renamed (old → new), from git's rename detection."""
    _texts: dict[str, str | None] = field(default_factory=dict)
    _imports: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    truncated: bool = False

    def file_set(self) -> frozenset[str]:
        """The same files as `files()`, for membership tests."""
        if self._file_set is None:
            self._file_set = frozenset(self.files())
        return self._file_set

    def files(self) -> list[str]:
        """Every file of the tree (at most `MAX_FILES`), sorted."""
        if self._files is None:
            self._files = self._walk()
        return self._files

    def _walk(self) -> list[str]:
        found: list[str] = []
        for top, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
            rel = Path(top).relative_to(self.root)
            for name in sorted(names):
                found.append((rel / name).as_posix())
                if len(found) >= MAX_FILES:
                    self.truncated = True
                    return sorted(found)
        return sorted(found)

    def text(self, rel: str) -> str | None:
        """The file's text (UTF-8, errors replaced), or None if unreadable or too large."""
        if rel not in self._texts:
            self._texts[rel] = _read(self.root / rel)
        return self._texts[rel]

    def imports(self, rel: str) -> list[tuple[str, int]]:
        if rel not in self._imports:
            text = self.text(rel)
            self._imports[rel] = import_specifiers(rel, text) if text is not None else []
        return self._imports[rel]

    # ------------------------------------------------------------ who imports what

    def importers(self, target: str) -> list[ImportHit]:
        """Files (other than `target`) that import `target`, first ones first."""
        language = language_of(target)
        hits: list[ImportHit] = []
        for rel in self.files():
            if rel == target or language_of(rel) == "text":
                continue
            hit = self.import_of(rel, target, language)
            if hit is not None:
                hits.append(hit)
                if len(hits) >= 5:
                    break
        return hits

    def import_of(
        self, importer: str, target: str, language: str | None = None
    ) -> ImportHit | None:
        """How `importer` imports `target` (a path in the tree or a module name), or None."""
        language = language or language_of(target)
        module_path = self.go_module_path()
        for spec, line in self.imports(importer):
            if _resolves(importer, spec, target, language, module_path):
                return ImportHit(importer, line, spec)
        if language in ("rust", "other-code"):
            return self._names(importer, target)
        return None

    def _names(self, importer: str, target: str) -> ImportHit | None:
        stem = PurePosixPath(target).stem
        text = self.text(importer)
        if text is None or len(stem) < 3:
            return None
        match = re.search(rf"\b{re.escape(stem)}\b", text)
        if match is None:
            return None
        return ImportHit(importer, text.count("\n", 0, match.start()) + 1, stem)

    def go_module_path(self) -> str | None:
        text = self.text("go.mod")
        if not text:
            return None
        match = re.search(r"^module\s+(\S+)", text, re.MULTILINE)
        return match.group(1) if match else None


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def _resolves(importer: str, spec: str, target: str, language: str, module: str | None) -> bool:
    if not _looks_like_file(target):
        return spec == target or spec.startswith(target + "/")
    if language == "python":
        return _python_match(spec, target)
    if language == "js":
        return _js_match(importer, spec, target)
    if language == "go":
        return _go_match(importer, spec, target, module)
    return False


def _looks_like_file(target: str) -> bool:
    return language_of(target) != "text" or PurePosixPath(target).suffix != ""


def _python_match(spec: str, target: str) -> bool:
    pure = PurePosixPath(target).with_suffix("")
    parts = list(pure.parts[:-1]) if pure.name == "__init__" else list(pure.parts)
    dotted = ".".join(parts)
    # `import pkg.mod`, `from pkg import mod` (seen as pkg.mod), or a submodule of a package.
    candidates = {dotted, *(".".join(parts[i:]) for i in range(1, len(parts)))}
    return any(spec == c or spec.startswith(c + ".") for c in candidates if c)


def _strip_ext(path: str) -> str:
    for ext in (".d.ts", *_JS_EXTENSIONS):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _js_match(importer: str, spec: str, target: str) -> bool:
    want = _strip_ext(target)
    want_dir = want[: -len("/index")] if want.endswith("/index") else None
    if spec.startswith("."):
        joined = os.path.normpath(os.path.join(os.path.dirname(importer), spec))
        got = _strip_ext(PurePosixPath(joined).as_posix())
        return got in (want, want_dir)
    for alias in _ALIASES:
        if spec.startswith(alias):
            rest = _strip_ext(spec[len(alias) :])
            return any(
                w is not None and (w == rest or w.endswith("/" + rest)) for w in (want, want_dir)
            )
    return False


def _go_match(importer: str, spec: str, target: str, module: str | None) -> bool:
    package_dir = PurePosixPath(target).parent.as_posix()
    if PurePosixPath(importer).parent.as_posix() == package_dir:
        return False  # same package: no import; `wired` looks at references instead
    if module:
        return spec == f"{module}/{package_dir}" if package_dir != "." else spec == module
    return package_dir != "." and spec.endswith("/" + package_dir)
