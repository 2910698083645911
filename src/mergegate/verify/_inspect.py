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
    is_entry_point,
    language_of,
)
from mergegate.verify._model import CheckKind, CheckSpec, Evidence, Outcome
from mergegate.verify._paths import repo_path
from mergegate.verify._pattern import search_pattern
from mergegate.verify._tree import ImportHit, TreeIndex

__all__ = ["inspect"]

_GO_DECL = re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+|var\s+|const\s+)([A-Za-z_]\w*)", re.M)


def inspect(spec: CheckSpec, tree: TreeIndex) -> Evidence:
    """Run one non-command check against the tree."""
    if spec.kind is CheckKind.REQUIREMENT:
        return _requirement(spec)
    assert spec.path is not None
    path = repo_path(tree.root, spec.path, what=spec.description)
    if spec.kind is CheckKind.EXISTS:
        return _exists(spec, path)
    if not path.exists():
        return _evidence(spec, Outcome.FAIL, f"{spec.path} does not exist")
    return _BY_KIND[spec.kind](spec, path, tree)


def _evidence(spec: CheckSpec, outcome: Outcome, detail: str) -> Evidence:
    return Evidence(check=spec.kind, by="program", outcome=outcome, detail=detail)


def _rel(tree: TreeIndex, path: Path) -> str:
    return path.resolve().relative_to(tree.root.resolve()).as_posix()


def _exists(spec: CheckSpec, path: Path) -> Evidence:
    if path.is_dir():
        return _evidence(spec, Outcome.PASS, f"{spec.path} exists (a directory)")
    if path.is_file():
        size = path.stat().st_size
        return _evidence(spec, Outcome.PASS, f"{spec.path} exists ({size} bytes)")
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
    detail = "; ".join(problems or facts)
    return _evidence(spec, Outcome.FAIL if problems else Outcome.PASS, f"{spec.path}: {detail}")


def _shortfalls(spec: CheckSpec, rel: str, text: str) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    lines = len(text.split("\n"))
    facts = [f"{lines} lines"]
    if spec.min_lines is not None and lines < spec.min_lines:
        problems.append(f"{lines} lines, fewer than the {spec.min_lines} required")
    if spec.contains:
        at = text.find(spec.contains)
        if at < 0:
            problems.append(f"does not contain {spec.contains!r}")
        else:
            facts.append(f"contains {spec.contains!r} at line {text.count(chr(10), 0, at) + 1}")
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
    if is_entry_point(rel) or _go_main(tree, rel):
        return _evidence(spec, Outcome.SKIPPED, f"{spec.path}: an entry point or test")
    hits = tree.importers(rel)
    if not hits and language == "go":
        hits = _go_same_package(tree, rel)
    if not hits:
        return _evidence(spec, Outcome.FAIL, f"{spec.path}: nothing else in the tree imports it")
    shown = ", ".join(f"{h.path}:{h.line} ({h.spec})" for h in hits[:3])
    return _evidence(spec, Outcome.PASS, f"{spec.path} is imported by {shown}")


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
    match = search_pattern(spec.pattern, text)
    how = " (searched as literal text: not a valid RE2 pattern)" if match.literal else ""
    if not match.found:
        return _evidence(
            spec, Outcome.FAIL, f"pattern {spec.pattern!r} not found in {spec.path}{how}"
        )
    return _evidence(spec, Outcome.PASS, f"{spec.path}:{match.line}: {match.text!r}{how}")


def _import(spec: CheckSpec, path: Path, tree: TreeIndex) -> Evidence:
    assert spec.target is not None
    rel = _rel(tree, path)
    target = spec.target
    if "/" in target or "." in PurePosixPath(target).name:
        candidate = repo_path(tree.root, target, what=spec.description)
        if candidate.exists():
            target = _rel(tree, candidate)
    hit = tree.import_of(rel, target)
    if hit is None:
        return _evidence(spec, Outcome.FAIL, f"{spec.path} does not import {spec.target}")
    return _evidence(spec, Outcome.PASS, f"{hit.path}:{hit.line} imports {hit.spec!r}")


def _requirement(spec: CheckSpec) -> Evidence:
    rid = spec.requirement
    if not spec.known:
        by = ", ".join(spec.claimed_by)
        return _evidence(spec, Outcome.FAIL, f"{by} claim {rid}, which the phase does not list")
    if not spec.claimed_by:
        return _evidence(spec, Outcome.FAIL, f"{rid}: no unit of the phase claims it")
    return _evidence(spec, Outcome.PASS, f"{rid} is claimed by {', '.join(spec.claimed_by)}")


_BY_KIND = {
    CheckKind.SUBSTANTIVE: _substantive,
    CheckKind.WIRED: _wired,
    CheckKind.PATTERN: _pattern,
    CheckKind.IMPORT: _import,
}
