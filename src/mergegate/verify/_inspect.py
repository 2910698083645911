"""The checks that read the tree: artifact levels, key links, requirement coverage.

Each returns one `Evidence` (by `program`) and never raises for what it finds in the tree;
a plan path that leaves the tree raises `PlanPathError` (exit 2) through `repo_path`.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from mergegate.verify._code import (
    exported_names,
    find_stubs,
    is_test,
    language_of,
    without_comments,
)
from mergegate.verify._conventions import loaded_by
from mergegate.verify._model import CheckKind, CheckSpec, Evidence, Outcome
from mergegate.verify._paths import looks_like_path, repo_path
from mergegate.verify._pattern import search_pattern
from mergegate.verify._tree import ImportHit, TreeIndex

__all__ = ["inspect"]

_GO_DECL = re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+|var\s+|const\s+)([A-Za-z_]\w*)", re.M)


def inspect(spec: CheckSpec, tree: TreeIndex) -> Evidence:
    """Run one non-command check against the tree."""
    if spec.kind is CheckKind.REQUIREMENT:
        return _requirement(spec)
    if spec.kind is CheckKind.STUBS:
        return _placeholders(spec, tree)
    assert spec.path is not None
    path = repo_path(tree.root, spec.path, what=spec.description)
    if spec.kind is CheckKind.EXISTS:
        return _exists(spec, path, tree)
    if not path.exists():
        renamed = tree.renames.get(spec.path or "")
        if renamed is not None and (tree.root / renamed).is_file():
            spec = spec.model_copy(update={"path": renamed})
            path = repo_path(tree.root, renamed, what=spec.description)
        else:
            return _evidence(spec, Outcome.FAIL, f"{spec.path} does not exist")
    return _BY_KIND[spec.kind](spec, path, tree)


def _evidence(spec: CheckSpec, outcome: Outcome, detail: str) -> Evidence:
    return Evidence(check=spec.kind, by="program", outcome=outcome, detail=detail)


def _rel(tree: TreeIndex, path: Path) -> str:
    return path.resolve().relative_to(tree.root.resolve()).as_posix()


def _exists(spec: CheckSpec, path: Path, tree: TreeIndex) -> Evidence:
    if path.is_dir():
        return _evidence(spec, Outcome.PASS, f"{spec.path} exists (a directory)")
    if path.is_file():
        size = path.stat().st_size
        return _evidence(spec, Outcome.PASS, f"{spec.path} exists ({size} bytes)")
    renamed = tree.renames.get(spec.path or "")
    if renamed is not None and (tree.root / renamed).is_file():
        return _evidence(
            spec,
            Outcome.UNCERTAIN,
            f"{spec.path} does not exist: the phase's commits renamed it to {renamed} "
            "(git rename detection); is the rename the plan's intent?",
        )
    return _evidence(spec, Outcome.FAIL, f"{spec.path} does not exist")


def _substantive(spec: CheckSpec, path: Path, tree: TreeIndex) -> Evidence:
    if path.is_dir():
        return _directory_substance(spec, path)
    rel = _rel(tree, path)
    text = tree.text(rel)
    if text is None:
        return _evidence(spec, Outcome.UNVERIFIED, f"{spec.path}: unreadable or over 2 MB")
    problems, facts = _shortfalls(spec, rel, text)
    stubs = find_stubs(rel, text)
    if stubs.stub:
        problems.append(f"placeholder code: {stubs.stub}")
    facts.extend(stubs.notes)
    if problems:
        return _evidence(spec, Outcome.FAIL, f"{spec.path}: {'; '.join(problems)}")
    short = _far_below_hint(spec, text)
    if short is not None:
        return _evidence(spec, Outcome.UNCERTAIN, f"{spec.path}: {short}; {'; '.join(facts)}")
    return _evidence(spec, Outcome.PASS, f"{spec.path}: {'; '.join(facts)}")


def _line_count(text: str) -> int:
    return len(text.split("\n"))


def _far_below_hint(spec: CheckSpec, text: str) -> str | None:
    """`min_lines` is the plan's hint for a stub detector, not a contract on line counts: a
    file with no placeholder code passes; only one under half the hint is left to judgement."""
    lines = _line_count(text)
    if spec.min_lines is None or lines * 2 >= spec.min_lines:
        return None
    return (
        f"{lines} lines where the plan expected about {spec.min_lines}, though no placeholder "
        "code was found: does it do all it should?"
    )


def _shortfalls(spec: CheckSpec, rel: str, text: str) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    lines = _line_count(text)
    facts = [f"{lines} lines"]
    if spec.min_lines is not None and lines < spec.min_lines:
        facts.append(f"the plan's hint was {spec.min_lines} lines (no placeholder code found)")
    if spec.contains:
        match = search_pattern(spec.contains, text)
        if not match.found:
            problems.append(f"does not contain {spec.contains!r}")
        else:
            facts.append(f"contains {spec.contains!r} at line {match.line}{match.describe()}")
    if spec.exports:
        found = exported_names(rel, text, spec.exports)
        missing = [name for name, where in found.items() if where is None]
        if missing:
            problems.append(f"does not export {', '.join(missing)}")
        else:
            facts.append("exports " + ", ".join(f"{n} ({w})" for n, w in found.items()))
    return problems, facts


def _directory_substance(spec: CheckSpec, path: Path) -> Evidence:
    files = [p for p in path.rglob("*") if p.is_file() and p.stat().st_size > 0]
    if not files:
        return _evidence(spec, Outcome.FAIL, f"{spec.path}: an empty directory")
    note = " ('contains' is not checked for a directory)" if spec.contains else ""
    return _evidence(spec, Outcome.PASS, f"{spec.path}: a directory of {len(files)} file(s){note}")


def _wired(spec: CheckSpec, path: Path, tree: TreeIndex) -> Evidence:
    if path.is_dir():
        return _evidence(spec, Outcome.SKIPPED, f"{spec.path}: not applicable to a directory")
    rel = _rel(tree, path)
    language = language_of(rel)
    if language == "text":
        return _evidence(spec, Outcome.SKIPPED, f"{spec.path}: not code; nothing imports it")
    if _go_main(tree, rel):
        return _evidence(spec, Outcome.PASS, f"{spec.path}: a Go program (package main)")
    hits = tree.importers(rel)
    if not hits and language == "go":
        hits = _go_same_package(tree, rel)
    if hits:
        shown = ", ".join(f"{h.path}:{h.line} ({h.spec})" for h in hits[:3])
        return _evidence(spec, Outcome.PASS, f"{spec.path} is imported by {shown}")
    loaded = loaded_by(tree, rel)
    if loaded is not None:
        return _evidence(spec, Outcome.PASS, f"{spec.path}: {loaded}")
    # Nothing found is not proof of nothing: a loader this check does not know may reach it.
    return _evidence(
        spec,
        Outcome.UNCERTAIN,
        f"{spec.path}: nothing in the tree imports it, and no manifest entry, framework folder, "
        f"reference by path or directory listing names it (searched {len(tree.files())} "
        "files); how is it loaded?",
    )


def _go_main(tree: TreeIndex, rel: str) -> bool:
    text = tree.text(rel) or ""
    return language_of(rel) == "go" and re.search(r"^package\s+main\b", text, re.M) is not None


def _go_same_package(tree: TreeIndex, rel: str) -> list[ImportHit]:
    """Go files of the same package use each other's names without an import."""
    names = set(_GO_DECL.findall(tree.text(rel) or "")) - {"init", "main"}
    folder = PurePosixPath(rel).parent.as_posix()
    hits = []
    for other in tree.files():
        same = other.endswith(".go") and PurePosixPath(other).parent.as_posix() == folder
        if other == rel or not same:
            continue
        text = tree.text(other) or ""
        for name in sorted(names):
            match = re.search(rf"\b{re.escape(name)}\b", text)
            if match:
                hits.append(ImportHit(other, text.count("\n", 0, match.start()) + 1, name))
                break
    return hits


def _pattern(spec: CheckSpec, path: Path, tree: TreeIndex) -> Evidence:
    assert spec.pattern is not None
    if path.is_dir():
        return _evidence(spec, Outcome.FAIL, f"{spec.path} is a directory, not a file")
    text = tree.text(_rel(tree, path))
    if text is None:
        return _evidence(spec, Outcome.UNVERIFIED, f"{spec.path}: unreadable or over 2 MB")
    rel = _rel(tree, path)
    match = search_pattern(spec.pattern, without_comments(rel, text))
    if match.found:
        line = _line_text(text, match.line)
        return _evidence(
            spec, Outcome.PASS, f"{spec.path}:{match.line}: {line!r}{match.describe()}"
        )
    in_comment = search_pattern(spec.pattern, text)
    if in_comment.found:  # a comment naming the link is not the link
        return _evidence(
            spec,
            Outcome.UNCERTAIN,
            f"pattern {spec.pattern!r} is only in a comment of {spec.path}:{in_comment.line} "
            f"({in_comment.text!r}): does the link hold?",
        )
    found = _pattern_in_target(spec, tree) or _pattern_nearby(spec, tree)
    if found is not None:
        return found
    return _evidence(spec, Outcome.FAIL, f"pattern {spec.pattern!r} not found in {spec.path}")


def _line_text(text: str, line: int | None) -> str:
    lines = text.split("\n")
    return lines[line - 1].strip()[:200] if line is not None and 0 < line <= len(lines) else ""


def _pattern_in_target(spec: CheckSpec, tree: TreeIndex) -> Evidence | None:
    """GSD's own key-link check accepts the pattern in the `to` file as well."""
    assert spec.pattern is not None
    if not spec.target or not looks_like_path(spec.target):
        return None
    target = repo_path(tree.root, spec.target, what=spec.description)
    text = tree.text(_rel(tree, target)) if target.is_file() else None
    rel = _rel(tree, target) if text is not None else ""
    match = search_pattern(spec.pattern, without_comments(rel, text)) if text else None
    if match is None or not match.found:
        return None
    where = f"{spec.target}:{match.line} ({_line_text(text or '', match.line)!r})"
    source = spec.path or ""
    source_text = tree.text(source) or ""
    imported = tree.import_of(source, rel) is not None or source_text.find(rel) >= 0
    used = _names_used(spec.pattern, without_comments(source, source_text))
    if imported and used:
        return _evidence(
            spec,
            Outcome.PASS,
            f"not in {source}, but in the link's target {where}, which {source} imports "
            f"and uses ({', '.join(used)})",
        )
    if imported:
        # The target defines it and `from` imports the target for something: that alone does
        # not show `from` uses this (a call moved elsewhere leaves the import behind).
        return _evidence(
            spec,
            Outcome.UNCERTAIN,
            f"pattern {spec.pattern!r} is not in {source} but in the link's target {where}, "
            f"which {source} imports without naming what the pattern names: does the link hold?",
        )
    # GSD's own check passes this; the target having the text does not show `from` uses it.
    return _evidence(
        spec,
        Outcome.UNCERTAIN,
        f"pattern {spec.pattern!r} is not in {source} but in the link's target {where}, which "
        f"{source} does not import: does the link hold?",
    )


_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]{2,63}")
_KEYWORDS = frozenset(
    [
        "export",
        "default",
        "function",
        "const",
        "class",
        "import",
        "from",
        "async",
        "await",
        "return",
        "def",
        "type",
        "interface",
        "let",
        "var",
        "new",
        "static",
        "public",
        "private",
        "protected",
        "extends",
        "implements",
        "func",
        "package",
        "struct",
        "impl",
        "pub",
        "use",
        "mod",
        "self",
        "this",
    ]
)


def _names_used(pattern: str, source_text: str) -> list[str]:
    """The names the pattern mentions (identifiers, keywords aside) when every one of them
    occurs as a whole word in `source_text`, else `[]`: what shows `from` uses what its target
    defines. Bounded: at most 16 names, one linear scan each."""
    # a regex escape (`\b`, `\.`) is not part of a name: `\bSave` names `Save`
    plain = re.sub(r"\\.", " ", pattern)
    names = [n for n in dict.fromkeys(_NAME.findall(plain)) if n not in _KEYWORDS][:16]
    used = [n for n in names if re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", source_text)]
    return used if used and len(used) == len(names) else []


def _pattern_nearby(spec: CheckSpec, tree: TreeIndex) -> Evidence | None:
    """The pattern in another file of the `from` file's folder: the link may live one file
    over (a plan's attribution, not the code, is then wrong): a question, not a gap."""
    assert spec.pattern is not None
    assert spec.path is not None
    folder = PurePosixPath(spec.path).parent.as_posix()
    for other in tree.files():
        if other == spec.path or PurePosixPath(other).parent.as_posix() != folder:
            continue
        if language_of(other) == "text" and language_of(spec.path) != "text":
            continue
        text = tree.text(other)
        match = search_pattern(spec.pattern, without_comments(other, text)) if text else None
        if match is not None and match.found:
            return _evidence(
                spec,
                Outcome.UNCERTAIN,
                f"pattern {spec.pattern!r} is not in {spec.path} but in {other}:{match.line} "
                f"({match.text!r}) in the same folder: does the link hold?",
            )
    return None


def _import(spec: CheckSpec, path: Path, tree: TreeIndex) -> Evidence:
    assert spec.target is not None
    rel = _rel(tree, path)
    target = spec.target
    if "/" in target or "." in PurePosixPath(target).name:
        candidate = repo_path(tree.root, target, what=spec.description)
        if candidate.exists():
            target = _rel(tree, candidate)
    hit = tree.import_of(rel, target)
    if hit is not None:
        return _evidence(spec, Outcome.PASS, f"{hit.path}:{hit.line} imports {hit.spec!r}")
    through = _through_reexport(tree, rel, target)
    if through is not None:
        return _evidence(spec, Outcome.PASS, through)
    text = tree.text(rel) or ""
    at = text.find(spec.target)
    if at >= 0:  # GSD's own check: the source names the target
        line = text.count("\n", 0, at) + 1
        return _evidence(spec, Outcome.PASS, f"{spec.path}:{line} names {spec.target!r}")
    return _evidence(spec, Outcome.FAIL, f"{spec.path} does not import {spec.target}")


def _through_reexport(tree: TreeIndex, rel: str, target: str) -> str | None:
    """`rel` imports a module (an `index.ts`, a package `__init__`) that re-exports or
    imports `target`: one hop, as a barrel file does."""
    for other in tree.files():
        if other in (rel, target) or language_of(other) != language_of(rel):
            continue
        first = tree.import_of(rel, other)
        if first is None:
            continue
        second = tree.import_of(other, target)
        if second is not None:
            return (
                f"{first.path}:{first.line} imports {first.spec!r}, which imports the target at "
                f"{second.path}:{second.line} ({second.spec!r})"
            )
    return None


def _requirement(spec: CheckSpec) -> Evidence:
    rid = spec.requirement
    if not spec.known:
        by = ", ".join(spec.claimed_by)
        return _evidence(spec, Outcome.FAIL, f"{by} claim {rid}, which the phase does not list")
    if not spec.claimed_by and spec.silent:
        return _evidence(
            spec,
            Outcome.UNVERIFIED,
            f"{rid}: no unit claims it, and {', '.join(spec.silent)} declare no requirements "
            "(coverage not declared)",
        )
    if not spec.claimed_by:
        return _evidence(spec, Outcome.FAIL, f"{rid}: no unit of the phase claims it")
    return _evidence(spec, Outcome.PASS, f"{rid} is claimed by {', '.join(spec.claimed_by)}")


_SCAN_SKIP = (".planning/", ".paul/", ".mergegate/", "docs/superpowers/plans/", "specs/")
# Not placeholders in a file a phase merely touched: an empty `__init__.py` or a barrel of
# re-exports is what it should be.
# In a file the phase merely touched, only markers that say "not done" decide: a TODO-only
# file, NotImplementedError, a "not implemented" throw or panic. Shapes that are often
# legitimate there (an empty `__init__.py`, a barrel of re-exports, a no-op callback, a small
# presentational component) are judged only for declared artifacts.
_SCAN_DECIDES = ("the file holds only TODO", "raises NotImplementedError", "placeholder:")


def _placeholders(spec: CheckSpec, tree: TreeIndex) -> Evidence:
    """Seed 004 pitfall: the anti-pattern scan covers every file the phase changed."""
    names = [n for n in dict.fromkeys([*tree.changed, *spec.files]) if _scannable(n, tree)]
    if not names:
        why = "no changed file is known (give --base, or a git history with the phase's commits)"
        return _evidence(spec, Outcome.SKIPPED, why)
    found = []
    for name in names:
        text = tree.text(name)
        if text is None:
            continue
        stub = find_stubs(name, text).stub
        if stub and stub.startswith(_SCAN_DECIDES):
            found.append(f"{name}: {stub}")
    if found:
        return _evidence(spec, Outcome.FAIL, "placeholder code in " + "; ".join(found[:8]))
    return _evidence(spec, Outcome.PASS, f"no placeholder code in {len(names)} changed file(s)")


def _scannable(name: str, tree: TreeIndex) -> bool:
    if name.startswith(_SCAN_SKIP) or name not in tree.file_set():
        return False
    if is_test(name):
        return False
    return language_of(name) != "text" or name.lower().endswith((".md", ".txt", ".rst"))


_BY_KIND = {
    CheckKind.SUBSTANTIVE: _substantive,
    CheckKind.WIRED: _wired,
    CheckKind.PATTERN: _pattern,
    CheckKind.IMPORT: _import,
}
